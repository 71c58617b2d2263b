//! The executor's meaning of each instruction against the CPU the tests run on.
//!
//! This test must never skip a register or a flag the executor calls defined.

use cryptopt_ir::Function;
use cryptopt_x86::{Inst, Mem, Reg, Size};

use super::{evaluate, parse, run_insts};
use crate::x86::flags::{CF, FLAG_NAMES, OF, ZF};
use Reg::*;

/// The checker's meaning of each instruction against the CPU it runs on: every
/// snippet runs natively (through the measure crate's ABI-checking runner) and
/// symbolically, from the same random registers and each of four flag states; every
/// register, and every flag the checker says is defined, must agree.
#[test]
fn cpu_agrees() {
    use cryptopt_ir::{Param, Ty};
    use cryptopt_measure::diff::{Pairing, Runner};
    use cryptopt_x86::{Mnemonic as M, Operand as X};
    use rand::{Rng, SeedableRng};

    const TESTED: [Reg; 13] = [
        Rax, Rbx, Rcx, Rdx, Rbp, R8, R9, R10, R11, R12, R13, R14, R15,
    ];
    let param = |name: &str, n: usize| Param::unbounded(name, Ty::U64, Some(n as u32));
    let f = Function::new("snippet", vec![param("arg1", 13)], vec![param("out1", 16)]);
    // (setup, CF, OF, ZF, SF)
    let setups: [(&str, [u128; 4]); 4] = [
        ("xor eax, eax", [0, 0, 1, 0]),
        ("xor eax, eax; stc", [1, 0, 1, 0]),
        ("mov rax, 0x7fffffffffffffff; add rax, 1", [0, 1, 0, 1]),
        ("mov rax, 0x7fffffffffffffff; add rax, 1; stc", [1, 1, 0, 1]),
    ];
    let snippets = [
        "add rax, rbx",
        "add eax, ebx",
        "add ax, bx",
        "add al, bl",
        "add rax, 0x7f",
        "add rax, -3",
        "adc rax, rbx",
        "adc ecx, edx",
        "adc r8w, r9w",
        "adc r10b, r11b",
        "adc rax, 0",
        "sub rax, rbx",
        "sub ebp, r12d",
        "sub r13w, r14w",
        "sub r15b, al",
        "sbb rax, rbx",
        "sbb edx, ecx",
        "sbb bx, cx",
        "sbb dl, r8b",
        "cmp rax, rbx",
        "cmp eax, 5",
        "adcx rax, rbx",
        "adcx r9d, r10d",
        "adox rax, rbx",
        "adox r11d, r12d",
        "inc rax",
        "inc ecx",
        "inc dx",
        "inc bl",
        "dec rax",
        "dec r8d",
        "dec r9w",
        "dec r10b",
        "neg rax",
        "neg ebx",
        "neg cx",
        "neg dl",
        "not rax",
        "not ebx",
        "not cx",
        "not dl",
        "and rax, rbx",
        "and eax, ebx",
        "and ax, bx",
        "and al, bl",
        "and rax, 0xff",
        "or rcx, rdx",
        "or ecx, 0x10",
        "xor r8, r9",
        "xor r8d, r8d",
        "xor al, 0x5a",
        "test rax, rbx",
        "test ecx, edx",
        "test rax, rax",
        "bt rax, 5",
        "bt eax, 35",
        "bt rax, 63",
        "mov ecx, 70; bt rax, rcx",
        "mul rbx",
        "mul ecx",
        "mul r8w",
        "mul r9b",
        "imul rbx",
        "imul ecx",
        "imul r9w",
        "imul rax, rbx",
        "imul eax, ebx",
        "imul ax, bx",
        "imul rax, rbx, 0x13",
        "imul r8d, r9d, -7",
        "mulx r8, r9, rcx",
        "mulx r10d, r11d, ebx",
        "mulx r8, r8, rcx",
        "shl rax, 1",
        "shl rax, 13",
        "shl eax, 1",
        "shl eax, 31",
        "shl ax, 3",
        "shl al, 1",
        "shl al, 7",
        "shr rbx, 1",
        "shr rbx, 51",
        "shr ebx, 7",
        "shr bx, 1",
        "shr bl, 3",
        "sar rcx, 1",
        "sar rcx, 63",
        "sar ecx, 5",
        "sar cx, 1",
        "sar r8b, 2",
        "mov ecx, 0; shl rax, cl",
        "mov ecx, 0; shl eax, cl",
        "mov ecx, 65; shl rax, cl",
        "mov ecx, 9; shl al, cl",
        "mov ecx, 17; shr bx, cl",
        "shld rax, rbx, 1",
        "shld rax, rbx, 13",
        "shld eax, ebx, 5",
        "shrd rax, rbx, 1",
        "shrd rax, rbx, 51",
        "shrd r8d, r9d, 31",
        "mov ecx, 7; shlx rax, rbx, rcx",
        "mov ecx, 70; shrx rax, rbx, rcx",
        "mov ecx, 63; sarx rax, rbx, rcx",
        "mov ecx, 33; shlx eax, ebx, ecx",
        "rorx rax, rbx, 13",
        "rorx eax, ebx, 31",
        "mov ecx, 13; bzhi rax, rbx, rcx",
        "mov ecx, 64; bzhi rax, rbx, rcx",
        "mov ecx, 0x107; bzhi rax, rbx, rcx",
        "mov ecx, 5; bzhi eax, ebx, ecx",
        "mov ecx, 0; bzhi rax, rbx, rcx",
        "andn rax, rbx, rcx",
        "andn r8d, r9d, r10d",
        "mov ecx, 0x0d05; bextr rax, rbx, rcx",
        "mov ecx, 0x4010; bextr rax, rbx, rcx",
        "mov ecx, 0x0040; bextr rax, rbx, rcx",
        "mov ecx, 0x2003; bextr eax, ebx, ecx",
        "mov ecx, 0x0000; bextr rax, rbx, rcx",
        "movsx rax, bl",
        "movsx eax, bx",
        "movsx rax, ebx",
        "movsx cx, dl",
        // Vectors: every lane read back is written first (the lanes at entry are not
        // the tested registers).
        "vmovq xmm0, rax; vmovq rbx, xmm0",
        "vmovq xmm1, rax; vpinsrq xmm1, xmm1, rbx, 1; vpextrq rcx, xmm1, 1; vmovq rdx, xmm1",
        "vmovq xmm1, rax; vpinsrq xmm2, xmm1, rbx, 0; vpextrq rcx, xmm2, 1; vmovq rdx, xmm2",
        "vmovq xmm0, rax; vmovq xmm1, rbx; vpunpcklqdq xmm2, xmm0, xmm1; vpextrq rcx, xmm2, 1; vmovq rdx, xmm2",
        "vmovq xmm0, rax; vpinsrq xmm0, xmm0, rbx, 1; vmovq xmm1, rcx; vpinsrq xmm1, xmm1, rdx, 1; vinserti128 ymm2, ymm0, xmm1, 1; vextracti128 xmm3, ymm2, 1; vmovq r8, xmm3; vpextrq r9, xmm3, 1; vextracti128 xmm3, ymm2, 0; vmovq r10, xmm3; vpextrq r11, xmm3, 1",
        "vmovq xmm0, rax; vinserti128 ymm1, ymm0, xmm0, 1; vmovq xmm1, rbx; vextracti128 xmm2, ymm1, 1; vmovq rcx, xmm2; vpextrq rdx, xmm2, 1",
        "vmovq xmm0, rax; vinserti128 ymm1, ymm0, xmm0, 1; vzeroupper; vextracti128 xmm2, ymm1, 1; vmovq rcx, xmm2",
        "vmovq xmm0, rax; vpbroadcastq ymm1, xmm0; vextracti128 xmm2, ymm1, 1; vpextrq rcx, xmm2, 1; vpextrq rdx, xmm1, 1",
        "vmovq xmm0, rax; vmovq xmm1, xmm0; vmovq rbx, xmm1; vpextrq rcx, xmm1, 1",
        "vmovq xmm0, rax; vpinsrq xmm0, xmm0, rbx, 1; vmovq xmm1, rcx; vpinsrq xmm1, xmm1, rdx, 1; vpaddq xmm2, xmm0, xmm1; vmovq r8, xmm2; vpextrq r9, xmm2, 1; vpsubq xmm2, xmm0, xmm1; vmovq r10, xmm2; vpextrq r11, xmm2, 1",
        "vmovq xmm0, rax; vpinsrq xmm0, xmm0, rbx, 1; vmovq xmm1, rcx; vpinsrq xmm1, xmm1, rdx, 1; vpand xmm2, xmm0, xmm1; vmovq r8, xmm2; vpor xmm2, xmm0, xmm1; vpextrq r9, xmm2, 1; vpxor xmm2, xmm0, xmm1; vmovq r10, xmm2; vpextrq r11, xmm2, 1",
        "vmovq xmm0, rax; vpbroadcastq ymm0, xmm0; vmovq xmm1, rbx; vpbroadcastq ymm1, xmm1; vpaddq ymm2, ymm0, ymm1; vextracti128 xmm3, ymm2, 1; vpextrq rcx, xmm3, 1; vmovdqu ymm4, ymm2; vextracti128 xmm3, ymm4, 1; vmovq rdx, xmm3",
        "cmovc rax, rbx",
        "cmovnc eax, ebx",
        "cmovo rcx, rdx",
        "cmovno ecx, edx",
        "cmovz r8, r9",
        "cmovnz r8d, r9d",
        "setc al",
        "seto bl",
        "setz r9b",
        "setnz r10b",
        "clc",
        "stc",
        "mov eax, ebx",
        "mov ax, bx",
        "mov al, bl",
        "movzx eax, bl",
        "movzx rax, bx",
        "movzx ax, bl",
        "lea rax, [rbx + rcx*8 + 0x10]",
        "lea eax, [rbx + rcx]",
        "xchg rax, rbx",
        "mov rax, 0x123456789abcdef",
        "push rax; pop rbx",
        "add rax, rbx; adc rcx, rdx; setc r8b; movzx r8d, r8b",
        "test rax, rax; adox rax, rbx; adcx rcx, rdx; seto r9b",
        "sub rax, rbx; sbb rcx, rdx; sbb r8, r8",
        "mov r8, rax; shl r8, 13; shr r8, 13",
        "shr rax, 51; shl rbx, 13; or rax, rbx",
        "vmovq xmm0, rax; vpinsrq xmm0, xmm0, rbx, 1; vpmovsxbw ymm1, xmm0; vextracti128 xmm2, ymm1, 1; vmovq rcx, xmm2; vpextrq rdx, xmm2, 1; vmovq r8, xmm1; vpextrq r9, xmm1, 1",
        "vmovq xmm0, rax; vpmovsxbw xmm1, xmm0; vmovq rcx, xmm1; vpextrq rdx, xmm1, 1",
    ];
    // AVX-512VL's vpandq, where the CPU has it.
    let avx512 = "vmovq xmm0, rax; vpinsrq xmm0, xmm0, rbx, 1; vmovq xmm1, rcx; vpinsrq xmm1, xmm1, rdx, 1; vpandq xmm2, xmm0, xmm1; vmovq r8, xmm2; vpextrq r9, xmm2, 1";
    let mut snippets: Vec<String> = snippets.iter().map(|s| s.to_string()).collect();
    if std::arch::is_x86_feature_detected!("avx512vl") {
        snippets.push(avx512.to_string());
    } else {
        eprintln!("SKIPPED in cpu_agrees: `{avx512}` (this CPU has no AVX-512VL)");
    }
    // Vector code generation's lane arithmetic: ymm0 = [rax, rbx, rcx, rdx], ymm1 = [r8,
    // r9, r10, r11], ymm2 = [r12, r13, r14, r15], the result's four lanes back in rax,
    // rbx, rcx, rdx.
    let lanes = |v: u8, r: [&str; 4]| {
        format!(
            "vmovq xmm{v}, {}; vpinsrq xmm{v}, xmm{v}, {}, 1; vmovq xmm5, {}; \
             vpinsrq xmm5, xmm5, {}, 1; vinserti128 ymm{v}, ymm{v}, xmm5, 1",
            r[0], r[1], r[2], r[3]
        )
    };
    let setup = [
        lanes(0, ["rax", "rbx", "rcx", "rdx"]),
        lanes(1, ["r8", "r9", "r10", "r11"]),
        lanes(2, ["r12", "r13", "r14", "r15"]),
    ]
    .join("; ");
    let out = "vmovq rax, xmm3; vpextrq rbx, xmm3, 1; vextracti128 xmm4, ymm3, 1; \
               vmovq rcx, xmm4; vpextrq rdx, xmm4, 1";
    let avx2_lanes = [
        "vpsrlq ymm3, ymm0, 51",
        "vpsrlq ymm3, ymm0, 64",
        "vpsllq ymm3, ymm0, 13",
        "vpermq ymm3, ymm0, 0xb4",
        "vpermq ymm3, ymm0, 0x1b",
        "vpblendd ymm3, ymm0, ymm1, 0xcc",
        "vpblendd ymm3, ymm0, ymm1, 0x5a",
        "vxorps ymm3, ymm0, ymm1",
        "vmovups ymm3, ymm1",
    ];
    // SSE2's legacy forms write the low two lanes and keep the upper two: ymm3 starts
    // as ymm2 (their memory forms: the compilers' output in `tests/compilers.rs`).
    let sse2_lanes = [
        "vmovdqu ymm3, ymm2; movdqu xmm3, xmm0",
        "vmovdqu ymm3, ymm2; movdqa xmm3, xmm1",
        "vmovdqu ymm3, ymm2; movups xmm3, xmm0",
        "vmovdqu ymm3, ymm2; movaps xmm3, xmm1",
        "vmovdqu ymm3, ymm2; paddq xmm3, xmm0",
        "vmovdqu ymm3, ymm2; psubq xmm3, xmm1",
        "vmovdqu ymm3, ymm2; pand xmm3, xmm0",
        "vmovdqu ymm3, ymm2; por xmm3, xmm1",
        "vmovdqu ymm3, ymm2; pxor xmm3, xmm0",
        "vmovdqu ymm3, ymm2; punpcklqdq xmm3, xmm1",
        "vmovdqu ymm3, ymm2; xorps xmm3, xmm0",
    ];
    let ifma_lanes = [
        "vpmullq ymm3, ymm0, ymm1",
        "vmovdqu ymm3, ymm2; vpmadd52luq ymm3, ymm0, ymm1",
        "vmovdqu ymm3, ymm2; vpmadd52huq ymm3, ymm0, ymm1",
    ];
    let ifma = cryptopt_x86::Feature::Avx512Ifma.detected();
    for op in avx2_lanes
        .iter()
        .chain(&sse2_lanes)
        .chain(if ifma { &ifma_lanes[..] } else { &[] })
    {
        snippets.push(format!("{setup}; {op}; {out}"));
    }
    if !ifma {
        eprintln!("SKIPPED in cpu_agrees: {ifma_lanes:?} (this CPU has no AVX-512 IFMA/VL/DQ)");
    }
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    let edge = [
        0u64,
        1,
        2,
        u64::MAX,
        1 << 63,
        (1 << 63) - 1,
        0xffff_ffff,
        0x8000_0000,
        0x80,
        0x7f,
        0xff,
    ];
    let mut runner = Runner::new().expect("runner");
    let mut code = Vec::new();
    let mut runs = 0;
    for snip in &snippets {
        let snip = snip.as_str();
        let body = parse(snip);
        for (setup, fl) in setups {
            let sym = run_insts(&body, fl.map(Some)).unwrap_or_else(|e| panic!("{snip}: {e}"));
            // prologue, flags, loads, the snippet, stores, epilogue
            let mut insts: Vec<Inst> = Vec::new();
            for &r in cryptopt_x86::Abi::SysV.callee_saved() {
                insts.push(Inst::op1(M::Push, X::r64(r)));
            }
            insts.extend(parse(setup));
            for (k, r) in TESTED.iter().enumerate() {
                insts.push(Inst::op2(
                    M::Mov,
                    X::r64(*r),
                    X::Mem(Mem::qword(Reg::Rsi, 8 * k as i32)),
                ));
            }
            insts.extend(body.iter().copied());
            for (k, r) in TESTED.iter().enumerate() {
                insts.push(Inst::op2(
                    M::Mov,
                    X::Mem(Mem::qword(Reg::Rdi, 8 * k as i32)),
                    X::r64(*r),
                ));
            }
            for (i, mn) in [(CF, M::Setc), (OF, M::Seto), (ZF, M::Setz)] {
                insts.push(Inst::op1(
                    mn,
                    X::Mem(Mem::at(Reg::Rdi, 8 * (13 + i as i32), Size::B8)),
                ));
            }
            for r in cryptopt_x86::Abi::SysV.callee_saved().iter().rev() {
                insts.push(Inst::op1(M::Pop, X::r64(*r)));
            }
            insts.push(Inst::op0(M::Ret));
            code.clear();
            cryptopt_x86::encode::encode(&insts, &mut code).expect("encodes");
            runner.load(&code).expect("loads");
            for trial in 0..24 {
                let vals: Vec<u64> = (0..13)
                    .map(|_| {
                        if trial < 8 || rng.random_range(0..3) == 0 {
                            edge[rng.random_range(0..edge.len())]
                        } else {
                            rng.random()
                        }
                    })
                    .collect();
                let input = vec![vals.iter().map(|&v| v as u128).collect::<Vec<u128>>()];
                let out = runner
                    .run(&f, &input, Pairing::Distinct)
                    .unwrap_or_else(|e| panic!("{snip}: {e}"));
                let mut init = [0u64; 16];
                for (k, r) in TESTED.iter().enumerate() {
                    init[r.index()] = vals[k];
                }
                init[Reg::Rsp.index()] = 0x7fff_f000;
                let (regs, flags) = evaluate(&sym, &init);
                for (k, r) in TESTED.iter().enumerate() {
                    assert_eq!(
                        regs[r.index()],
                        out[0][k] as u64,
                        "`{snip}` after `{setup}` on {vals:x?}: {r}"
                    );
                }
                for i in [CF, OF, ZF] {
                    if let Some(v) = flags[i] {
                        assert_eq!(
                            v,
                            out[0][13 + i] as u64 & 0xff,
                            "`{snip}` after `{setup}` on {vals:x?}: {}",
                            FLAG_NAMES[i]
                        );
                    }
                }
                runs += 1;
            }
        }
    }
    eprintln!(
        "cpu_agrees: {} snippets, {runs} native runs",
        snippets.len()
    );
}
