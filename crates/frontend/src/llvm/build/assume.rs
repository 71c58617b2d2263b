//! Input bounds from `llvm.assume`: C's `__builtin_assume(a[i] < 2^56)` (or gcc's
//! `if (!(…)) __builtin_unreachable()`) states a precondition of the function —
//! libsecp256k1's magnitude rules are of this kind — and clang prints it as
//! `%c = icmp ult i64 %x, K` with `call void @llvm.assume(i1 %c)` where `%x` is a load
//! of an input word. Such a bound becomes that input element's declared upper bound:
//! the interpreter checks it, inputs are drawn within it, the checker proves for every
//! input within it (LLVM gives the function no meaning outside it: an assumption that
//! does not hold is undefined behaviour), and the wide arithmetic's bound analysis uses
//! it.
//!
//! Only that form is read; any other assumption is left unused, which is sound (the
//! function is then proved on more inputs than it needs). This module must never record
//! a bound that the assumption does not imply.

use std::collections::HashMap;

use num_bigint::BigUint;
use num_traits::{One, Zero};

use super::super::syntax::{Arg, Func, Kind, Pred, Type};
use super::{literal, resolve, Ptrs, Slot};

/// Per (input parameter, word): the least upper bound the assumptions state.
pub(super) type Assumed = HashMap<(u32, u32), BigUint>;

/// The upper bounds of input words stated by the function's `llvm.assume` calls.
pub(super) fn assumed_bounds(func: &Func, ptrs: &Ptrs, slots: &[Slot]) -> Assumed {
    let defs: HashMap<&str, &Kind> = func
        .body
        .iter()
        .filter_map(|i| Some((i.result.as_deref()?, &i.kind)))
        .collect();
    // The input word a 64-bit load reads.
    let word = |x: &Arg| -> Option<(u32, u32)> {
        let Arg::Local(n) = x else { return None };
        let Kind::Load {
            ty: Type::Int(64),
            ptr,
        } = defs.get(n.as_str())?
        else {
            return None;
        };
        let (arg, off) = resolve(ptrs, ptr, 0).ok()?;
        match slots.get(arg)? {
            Slot::Input(p) if off >= 0 && off % 8 == 0 => Some((*p, (off / 8) as u32)),
            _ => None,
        }
    };
    let mut out = Assumed::new();
    for inst in &func.body {
        let Kind::Call { callee, args, .. } = &inst.kind else {
            continue;
        };
        let [(_, Arg::Local(c))] = args.as_slice() else {
            continue;
        };
        if callee != "llvm.assume" {
            continue;
        }
        let Some(Kind::Icmp {
            pred,
            ty: Type::Int(64),
            a,
            b,
        }) = defs.get(c.as_str())
        else {
            continue;
        };
        // `x < k`, `x <= k`, `k > x`, `k >= x`.
        let (x, k, strict) = match (pred, a, b) {
            (Pred::Ult, x, Arg::Int(k)) | (Pred::Ugt, Arg::Int(k), x) => (x, k, true),
            (Pred::Ule, x, Arg::Int(k)) | (Pred::Uge, Arg::Int(k), x) => (x, k, false),
            _ => continue,
        };
        let Some(w) = word(x) else { continue };
        let k = literal(k, 64);
        let ub = match (strict, k.is_zero()) {
            // `x < 0` never holds: the function has no defined input; leave it alone.
            (true, true) => continue,
            (true, false) => k - BigUint::one(),
            (false, _) => k,
        };
        out.entry(w)
            .and_modify(|b| {
                if ub < *b {
                    *b = ub.clone()
                }
            })
            .or_insert(ub);
    }
    out
}

#[cfg(test)]
mod tests {
    use cryptopt_ir::func::{Function, Op, Operand};

    /// A function of two input words `%x`, `%y` (and `%s = %x + %y`) with `assumes`
    /// (each `%c<k> = …` line is followed by its `llvm.assume`), storing `body`'s `%o`.
    fn build(assumes: &[&str], body: &str, out: &str) -> Function {
        let mut a = String::new();
        for (k, cond) in assumes.iter().enumerate() {
            a += &format!("  %c{k} = {cond}\n  call void @llvm.assume(i1 %c{k})\n");
        }
        let text = format!(
            "define void @f(ptr %r, ptr %a) {{\n  %x = load i64, ptr %a\n  %p = getelementptr inbounds i8, ptr %a, i64 8\n  %y = load i64, ptr %p\n  %s = add i64 %x, %y\n{a}{body}  store {out} %o, ptr %r\n  ret void\n}}\n"
        );
        crate::llvm::parse_function(&text, "f").unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    /// The declared upper bounds of `%x` and `%y` under `assumes`.
    fn check(assumes: &[&str], want: [u128; 2]) {
        let f = build(assumes, "  %o = add i64 %s, 0\n", "i64");
        assert_eq!(f.params[0].ubound, want, "{assumes:?}");
    }

    #[test]
    fn assumed_bounds_of_input_words_become_declared_bounds() {
        const ALL: u128 = u64::MAX as u128;
        check(&[], [ALL, ALL]);
        check(
            &["icmp ult i64 %x, 72057594037927936"],
            [(1 << 56) - 1, ALL],
        );
        check(&["icmp ule i64 %y, 1000"], [ALL, 1000]);
        check(&["icmp ugt i64 1000, %x"], [999, ALL]);
        check(&["icmp uge i64 1000, %y"], [ALL, 1000]);
        // The least of two bounds of one word.
        check(
            &[
                "icmp ult i64 %x, 4096",
                "icmp ult i64 %x, 256",
                "icmp ult i64 %x, 65536",
            ],
            [255, ALL],
        );
        // Not read (and so not used): lower bounds, `x < 0`, signed order, a bound of
        // a value that is not an input word, a condition that is not an icmp.
        check(&["icmp ugt i64 %x, 5"], [ALL, ALL]);
        check(&["icmp ult i64 %x, 0"], [ALL, ALL]);
        check(&["icmp slt i64 %x, 100"], [ALL, ALL]);
        check(&["icmp ult i64 %s, 100"], [ALL, ALL]);
        check(&["trunc i64 %x to i1"], [ALL, ALL]);
    }

    #[test]
    fn bounded_inputs_leave_out_words_that_are_known_zero() {
        // (x·y) >> 52 as an i128: with x, y < 2^56 the product is below 2^112, and
        // the shifted value's high word is the literal 0.
        let body = "  %xw = zext i64 %x to i128\n  %yw = zext i64 %y to i128\n  %m = mul i128 %xw, %yw\n  %o = lshr i128 %m, 52\n";
        let high_word = |f: &Function| {
            let d = f
                .insts
                .iter()
                .find(|d| d.op == (Op::Store { ret: 0, index: 1 }));
            d.expect("a store of word 1").args[0]
        };
        let both = [
            "icmp ult i64 %x, 72057594037927936",
            "icmp ult i64 %y, 72057594037927936",
        ];
        assert_eq!(high_word(&build(&both, body, "i128")), Operand::Const(0));
        // One operand unbounded: the product may reach 2^120, the word is computed.
        let one = build(&both[..1], body, "i128");
        assert!(matches!(high_word(&one), Operand::Value(_)));
        // And the bounded function is still the product: against exact arithmetic.
        let f = build(&both, body, "i128");
        for (x, y) in [
            (0u128, 0u128),
            (1, 1 << 52),
            ((1 << 56) - 1, (1 << 56) - 1),
            (12345, 987654321),
        ] {
            let got = cryptopt_ir::interp::run(&f, &[vec![x, y]]).unwrap();
            let want = (x * y) >> 52;
            assert_eq!(
                got[0],
                vec![want & u64::MAX as u128, want >> 64],
                "{x} · {y}"
            );
        }
    }
}
