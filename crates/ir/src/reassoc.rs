//! Reassociation of sums so that addends shared between sums are added once.
//!
//! Fiat's unsaturated Solinas code adds each column as its own tree of binary sums. For
//! a modulus with several terms (p448: `2^448 ≡ 2^224 + 1`), one partial product reaches
//! two or three columns, so the same pairs of addends are summed again and again in
//! different trees, and each shared product stays live (in a register or a spill slot)
//! until its last column. gcc's reassociation finds some of this; hash-consing does not,
//! because the trees are nested differently. This pass, run on the Fiat dialect before
//! legalization:
//!
//! ```text
//!   1. value numbering: equal loads, zero-extending casts and equal operations (sorted
//!      operands where they commute) get one number: equal numbers are equal numbers
//!   2. sum trees: an unsigned `+` whose value has exactly one use, as an addend of a
//!      `+` of the same type, is part of that sum; each root sum becomes a multiset of
//!      addends (the literals folded into one)
//!   3. greedy pair extraction: while some pair of addends occurs in two or more sums of
//!      one type, add that pair once and use its sum in each of them
//!   4. rebuild: each root as a left-nested chain of binary `+` over its remaining
//!      addends (shared sums first), shared sums emitted right before their first user
//! ```
//!
//! Unsigned sums of one type `W` are sums modulo `2^W`, which is associative and
//! commutative whatever the addends, so every rewrite keeps the function equal under
//! [`crate::interp`]; and each new partial sum is a sub-sum of non-negative addends of a
//! sum that the declared bounds keep below `2^W`, so no bound analysis sees a new
//! overflow. It must never touch a sum with a signed type or an operand wider than the
//! sum, and never change anything but sums.

use std::collections::{BTreeMap, HashMap};

use crate::func::{Function, InstData, Op, Operand, Ty, Value};
use crate::lower::{use_counts, Rebuild};

/// An addend of a sum: a value number, a literal, or a shared sum made by this pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Atom {
    Num(u32),
    Const(u128),
    Shared(u32),
}

/// A sum of one unsigned type that qualifies for reassociation: unsigned result, every
/// operand unsigned and no wider than the result.
fn is_sum(f: &Function, d: &InstData) -> Option<Ty> {
    if d.op != Op::Add || d.results.len() != 1 {
        return None;
    }
    let ty = f.ty(d.results[0]);
    let fits = |o: &Operand| match *o {
        Operand::Const(c) => c <= ty.mask(),
        Operand::Value(v) => !f.ty(v).signed && f.ty(v).bits <= ty.bits,
    };
    (!ty.signed && d.args.iter().all(fits)).then_some(ty)
}

/// Does casting `a` to `r`'s type keep its value (unsigned, not narrower)?
fn keeps_value(f: &Function, a: Value, r: Value) -> bool {
    let (ta, tr) = (f.ty(a), f.ty(r));
    !ta.signed && !tr.signed && tr.bits >= ta.bits
}

/// Rewrites the sums of `f` so that pairs of addends shared by several sums are added
/// once (see the module documentation). A function without such pairs comes back as it
/// was.
pub fn share_sums(f: &Function) -> Function {
    let n = f.values.len();
    // 1. Value numbers: an instruction's results get consecutive numbers from its key.
    let mut num = vec![0u32; n];
    let mut next_num = 0u32;
    let mut memo: HashMap<(Op, Vec<Atom>, Vec<Ty>), u32> = HashMap::new();
    for d in &f.insts {
        if let (Op::Cast, [Operand::Value(a)], [r]) = (d.op, &d.args[..], &d.results[..]) {
            if keeps_value(f, *a, *r) {
                num[r.index()] = num[a.index()];
                continue;
            }
        }
        let mut args: Vec<Atom> = d
            .args
            .iter()
            .map(|&o| match o {
                Operand::Value(v) => Atom::Num(num[v.index()]),
                Operand::Const(c) => Atom::Const(c),
            })
            .collect();
        if d.op.is_ac() {
            args.sort();
        }
        let tys: Vec<Ty> = d.results.iter().map(|&r| f.ty(r)).collect();
        let base = *memo.entry((d.op, args, tys)).or_insert_with(|| {
            next_num += d.results.len() as u32;
            next_num - d.results.len() as u32
        });
        for (i, &r) in d.results.iter().enumerate() {
            num[r.index()] = base + i as u32;
        }
    }
    // 2. Sum trees. An operand of a sum of type W whose value comes, through casts that
    // keep it, from another sum of type W, with one use at every link, is part of it:
    // `inline[v]` is that inner sum, `dropped` marks it and the casts on the way.
    let uses = use_counts(f);
    let def = |v: Value| &f.insts[f.values[v.index()].def.index()];
    let mut inline: Vec<Option<Value>> = vec![None; n];
    let mut dropped = vec![false; n];
    for d in &f.insts {
        let Some(ty) = is_sum(f, d) else { continue };
        for a in &d.args {
            let Operand::Value(top) = *a else { continue };
            let mut x = top;
            let mut chain = Vec::new();
            while uses[x.index()] == 1 {
                let dx = def(x);
                if is_sum(f, dx) == Some(ty) {
                    inline[top.index()] = Some(x);
                    dropped[x.index()] = true;
                    for &c in &chain {
                        dropped[c] = true;
                    }
                    break;
                }
                match (dx.op, &dx.args[..]) {
                    (Op::Cast, [Operand::Value(src)]) if keeps_value(f, *src, x) => {
                        chain.push(x.index());
                        x = *src;
                    }
                    _ => break,
                }
            }
        }
    }
    // The operand each value number stands for: its first value that stays.
    let mut rep: Vec<Option<Value>> = vec![None; next_num as usize];
    for v in 0..n {
        let r = &mut rep[num[v] as usize];
        if r.is_none() && !dropped[v] {
            *r = Some(Value(v as u32));
        }
    }
    let mut roots: Vec<(usize, Ty, Vec<Atom>)> = Vec::new();
    for (k, d) in f.insts.iter().enumerate() {
        let Some(ty) = is_sum(f, d) else { continue };
        if dropped[d.results[0].index()] {
            continue;
        }
        let mut leaves = Vec::new();
        let mut konst: u128 = 0;
        let mut stack: Vec<Operand> = d.args.iter().rev().copied().collect();
        while let Some(o) = stack.pop() {
            match o {
                Operand::Value(v) => match inline[v.index()] {
                    Some(s) => stack.extend(def(s).args.iter().rev().copied()),
                    None => leaves.push(Atom::Num(num[v.index()])),
                },
                Operand::Const(c) => konst = ty.wrap(konst.wrapping_add(c)),
            }
        }
        if konst != 0 {
            leaves.push(Atom::Const(konst));
        }
        roots.push((k, ty, leaves));
    }
    // 3. Greedy pair extraction, per type: the pair found in most sums first.
    let mut shared: Vec<(Ty, Atom, Atom)> = Vec::new();
    loop {
        let mut count: BTreeMap<(Ty, Atom, Atom), u32> = BTreeMap::new();
        for (_, ty, leaves) in &roots {
            let mut mult: BTreeMap<Atom, u32> = BTreeMap::new();
            for &a in leaves {
                *mult.entry(a).or_default() += 1;
            }
            let distinct: Vec<(Atom, u32)> = mult.into_iter().collect();
            for (i, &(a, m)) in distinct.iter().enumerate() {
                if m >= 2 {
                    *count.entry((*ty, a, a)).or_default() += 1;
                }
                for &(b, _) in &distinct[i + 1..] {
                    *count.entry((*ty, a, b)).or_default() += 1;
                }
            }
        }
        // The first of the most frequent pairs, if it occurs in two sums or more.
        let (mut best, mut top) = (None, 1);
        for (&pair, &c) in &count {
            if c > top {
                (best, top) = (Some(pair), c);
            }
        }
        let Some((ty, a, b)) = best else { break };
        let s = Atom::Shared(shared.len() as u32);
        shared.push((ty, a, b));
        for (_, t, leaves) in roots.iter_mut() {
            if *t != ty {
                continue;
            }
            let Some(i) = leaves.iter().position(|&x| x == a) else {
                continue;
            };
            let j = leaves
                .iter()
                .enumerate()
                .position(|(j, &x)| j != i && x == b);
            let Some(j) = j else { continue };
            leaves[i.min(j)] = s;
            leaves.remove(i.max(j));
        }
    }
    if shared.is_empty() {
        return f.clone();
    }
    // 4. Rebuild.
    let mut root_at: HashMap<usize, Vec<Atom>> = HashMap::new();
    for (k, _, mut leaves) in roots {
        // Shared sums first (stable), the rest in their original order.
        leaves.sort_by_key(|a| !matches!(a, Atom::Shared(_)));
        root_at.insert(k, leaves);
    }
    let mut rb = Rebuild::new(f);
    let mut made: Vec<Option<Operand>> = vec![None; shared.len()];
    for (k, d) in f.insts.iter().enumerate() {
        if d.results.len() == 1 && dropped[d.results[0].index()] {
            continue;
        }
        let Some(leaves) = root_at.get(&k) else {
            let args = rb.args(d);
            rb.emit_like(d, d.op, args);
            continue;
        };
        let ty = f.ty(d.results[0]);
        let args: Vec<Operand> = leaves
            .iter()
            .map(|&a| addend(&mut rb, &mut made, a, &rep, &shared))
            .collect();
        let r = match (&leaves[..], &args[..]) {
            (_, []) => Operand::Const(0),
            ([Atom::Shared(_)], [x]) => *x,
            (_, [x]) => Operand::Value(rb.new.push1(Op::Cast, vec![*x], ty)),
            _ => {
                // Binary and left-nested, as legalization chains an n-ary sum: the
                // checker follows a program's grouping of carries, so the rewrite
                // must group them as the code made from it does.
                let mut acc = args[0];
                for &x in &args[1..] {
                    acc = Operand::Value(rb.new.push1(Op::Add, vec![acc, x], ty));
                }
                acc
            }
        };
        if let Operand::Value(v) = r {
            let name = &mut rb.new.values[v.index()].name;
            if name.is_none() {
                name.clone_from(&f.values[d.results[0].index()].name);
            }
        }
        rb.map[d.results[0].index()] = r;
    }
    rb.new
}

/// The operand of addend `a`, emitting a shared sum (and the shared sums it is made of)
/// on first use; `made` holds the shared sums emitted so far.
fn addend(
    rb: &mut Rebuild<'_>,
    made: &mut [Option<Operand>],
    a: Atom,
    rep: &[Option<Value>],
    shared: &[(Ty, Atom, Atom)],
) -> Operand {
    match a {
        Atom::Num(k) => {
            let v = rep[k as usize].expect("an addend's number has a value that stays");
            rb.arg(Operand::Value(v))
        }
        Atom::Const(c) => Operand::Const(c),
        Atom::Shared(s) => {
            if let Some(o) = made[s as usize] {
                return o;
            }
            let (ty, x, y) = shared[s as usize];
            let args = vec![
                addend(rb, made, x, rep, shared),
                addend(rb, made, y, rep, shared),
            ];
            let o = Operand::Value(rb.new.push1(Op::Add, args, ty));
            made[s as usize] = Some(o);
            o
        }
    }
}
