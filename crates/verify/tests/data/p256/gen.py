#!/usr/bin/env python3
"""Writes the hand-written-style P-256 Montgomery multiplications and squarings that
crates/verify/tests/handwritten.rs checks (GNU as, Intel syntax), one file per style,
into this folder (the .s files are the test data; this script is how they were made):

    python3 gen.py .

Every variant computes Fiat's fiat_p256_mul / fiat_p256_square exactly: with
R = 2^256, t = (a*b + M*p) / R for the unique M < R with a*b + M*p = 0 mod R, then
t - p if t >= p else t. Since -p^-1 = 1 mod 2^64, each word of M is the low word of the
accumulator at its step (m = t0). The styles differ in association, instruction choice
and reduction strategy, which is what the checker must see through."""
import sys, os

P = [0xffffffffffffffff, 0x00000000ffffffff, 0, 0xffffffff00000001]
SAVED = ["rbx", "rbp", "r12", "r13", "r14", "r15"]


class Asm:
    def __init__(self, name, doc):
        self.name = name
        self.lines = ["# " + l if l else "#" for l in doc.strip().split("\n")]
        self.lines += ["\t.intel_syntax noprefix", "\t.text", f"\t.globl\t{name}",
                       f"\t.type\t{name}, @function", f"{name}:"]

    def __call__(self, *insts):
        for i in insts:
            self.lines.append("\t" + i)

    def comment(self, c):
        self.lines.append("\t# " + c)

    def prologue(self):
        for r in SAVED:
            self(f"push\t{r}")

    def epilogue(self):
        for r in reversed(SAVED):
            self(f"pop\t{r}")
        self("ret")
        self.lines.append(f"\t.size\t{self.name}, .-{self.name}")
        self.lines.append('\t.section\t.note.GNU-stack,"",@progbits')

    def text(self):
        return "\n".join(self.lines) + "\n"


def q(base, i):
    return f"QWORD PTR [{base}+{8 * i}]" if i else f"QWORD PTR [{base}]"


def imm(c):
    return f"0x{c:016x}"


def sub_p(a, t, tmp, top, const):
    """tmp = t - p (t: 4 regs + top carry word), the borrow out in CF."""
    for x, y in zip(tmp, t):
        a(f"mov\t{x}, {y}")
    a(f"sub\t{tmp[0]}, -1")
    a(f"mov\t{const}, {imm(P[1])}", f"sbb\t{tmp[1]}, {const}")
    a(f"sbb\t{tmp[2]}, 0")
    a(f"mov\t{const}, {imm(P[3])}", f"sbb\t{tmp[3]}, {const}")
    a(f"sbb\t{top}, 0")


def final_cmov(a, t, tmp, top, const):
    """t (4 regs) + top carry word: t - p if t >= p else t, by sub/sbb and cmovc; stores
    to [rdi]. tmp: 4 free registers, const: one more."""
    a.comment("t - p; keep t where it borrows")
    sub_p(a, t, tmp, top, const)
    for x, y in zip(tmp, t):
        a(f"cmovc\t{x}, {y}")
    for i, x in enumerate(tmp):
        a(f"mov\t{q('rdi', i)}, {x}")


def final_mask(a, t, tmp, top, const, mask):
    """As final_cmov, selecting by an sbb mask: r = d ^ ((t ^ d) & mask)."""
    a.comment("d = t - p; mask = all ones where it borrows; r = d ^ ((t ^ d) & mask)")
    sub_p(a, t, tmp, top, const)
    a(f"sbb\t{mask}, {mask}")
    for i, (x, y) in enumerate(zip(tmp, t)):
        a(f"xor\t{y}, {x}", f"and\t{y}, {mask}", f"xor\t{x}, {y}", f"mov\t{q('rdi', i)}, {x}")


def mul_mulx_cios():
    a = Asm("p256_mul_mulx_cios", """
Textbook CIOS Montgomery multiplication with a carry word: (hi, lo) = t[j] + a[j]*b[i]
+ C one word at a time, products by mulx; the reduction multiplies m = t0 by the words
of p held in a register (p2 = 0 only passes the carry on). Final: sub/sbb, cmovc.""")
    a.prologue()
    a("mov\trcx, rdx")
    t = ["r8", "r9", "r10", "r11", "r12", "r13"]
    C, hi, lo, k = "r14", "rbx", "rax", "rbp"
    for r in t:
        a(f"xor\t{r}, {r}")
    for i in range(4):
        a.comment(f"t += a * b[{i}]")
        a(f"mov\trdx, {q('rcx', i)}", f"xor\t{C}, {C}")
        for j in range(4):
            a(f"mulx\t{hi}, {lo}, {q('rsi', j)}",
              f"add\t{lo}, {C}", f"adc\t{hi}, 0",
              f"add\t{t[j]}, {lo}", f"adc\t{hi}, 0", f"mov\t{C}, {hi}")
        a(f"add\t{t[4]}, {C}", f"adc\t{t[5]}, 0")
        a.comment("t = (t + m*p) / 2^64, m = t0")
        a(f"mov\trdx, {t[0]}")
        add_m_times_p(a, t[:4], hi, lo, C, k)
        a(f"add\t{t[4]}, {C}", f"adc\t{t[5]}, 0")
        t = t[1:] + t[:1]
        a(f"xor\t{t[5]}, {t[5]}")
    final_cmov(a, t[:4], ["rax", "rbx", "rdx", "rsi"], t[4], "rbp")
    a.epilogue()
    return a


def mul_mulq_openssl():
    a = Asm("p256_mul_mulq_shift", """
OpenSSL-style: products by mul (rdx:rax), one row per word of b with a carry word; the
reduction uses the shape of p: m*(p0 + p1*2^64) + t0 = m*2^96 when m = t0, added as
m<<32 and m>>32, and m*p3 by one mul. Final: sub/sbb, cmovc.""")
    a.prologue()
    a("mov\trcx, rdx")
    A = ["r8", "r9", "r10", "r11", "r12", "r13"]
    t0, t1, p3 = "r14", "r15", "rbx"
    a(f"mov\t{p3}, {imm(P[3])}")
    a.comment("t = a * b[0]")
    a("mov\trax, QWORD PTR [rcx]", f"mov\t{t1}, rax")
    a("mul\tQWORD PTR [rsi]", f"mov\t{A[0]}, rax", f"mov\trax, {t1}", f"mov\t{A[1]}, rdx")
    for j in range(1, 4):
        a(f"mul\t{q('rsi', j)}", f"add\t{A[j]}, rax", f"mov\trax, {t1}", "adc\trdx, 0",
          f"mov\t{A[j + 1]}, rdx")
    a(f"xor\t{A[5]}, {A[5]}")
    for i in range(4):
        if i:
            a.comment(f"t += a * b[{i}]")
            a(f"mov\trax, {q('rcx', i)}", f"mov\t{t1}, rax")
            a("mul\tQWORD PTR [rsi]", f"add\t{A[0]}, rax", f"mov\trax, {t1}", "adc\trdx, 0",
              f"mov\t{t0}, rdx")
            for j in range(1, 3):
                a(f"mul\t{q('rsi', j)}", f"add\t{A[j]}, {t0}", "adc\trdx, 0",
                  f"add\t{A[j]}, rax", f"mov\trax, {t1}", "adc\trdx, 0", f"mov\t{t0}, rdx")
            a(f"mul\t{q('rsi', 3)}", f"add\t{A[3]}, {t0}", "adc\trdx, 0",
              f"add\t{A[3]}, rax", f"adc\t{A[4]}, rdx", f"adc\t{A[5]}, 0")
        a.comment("reduction: m = t0; t += m*2^96 (as m<<32, m>>32) + m*p3*2^192")
        a(f"mov\trax, {A[0]}", f"mov\t{t1}, {A[0]}", f"shl\t{A[0]}, 32", f"mul\t{p3}",
          f"shr\t{t1}, 32", f"add\t{A[1]}, {A[0]}", f"adc\t{A[2]}, {t1}",
          f"adc\t{A[3]}, rax", f"adc\t{A[4]}, rdx", f"adc\t{A[5]}, 0")
        A = A[1:] + A[:1]
        a(f"xor\t{A[5]}, {A[5]}")
    final_cmov(a, A[:4], ["rax", "rdx", "rsi", "rcx"], A[4], "rbp")
    a.epilogue()
    return a


def mul_mulx_shifts():
    a = Asm("p256_mul_mulx_shifts", """
Products by mulx added as two carry chains per row (low halves, then high halves); the
reduction has no multiplication at all: m*p3 = m*2^64 + m - m*2^32 by sub/sbb of the
shifted halves, beside m<<32 and m>>32. Final: sub/sbb, cmovc.""")
    a.prologue()
    a("mov\trcx, rdx")
    A = ["r8", "r9", "r10", "r11", "r12", "r13"]
    H = ["rax", "rbx", "rbp", "r14"]
    lo = "r15"
    for r in A:
        a(f"xor\t{r}, {r}")
    for i in range(4):
        a.comment(f"t += a * b[{i}]: low halves, then high halves")
        a(f"mov\trdx, {q('rcx', i)}")
        for j in range(4):
            a(f"mulx\t{H[j]}, {lo}, {q('rsi', j)}")
            a(f"{'add' if j == 0 else 'adc'}\t{A[j]}, {lo}")
        a(f"adc\t{A[4]}, 0")
        a(f"add\t{A[1]}, {H[0]}", f"adc\t{A[2]}, {H[1]}", f"adc\t{A[3]}, {H[2]}",
          f"adc\t{A[4]}, {H[3]}", f"adc\t{A[5]}, 0")
        a.comment("reduction by shifts: m = t0")
        a(f"mov\trax, {A[0]}", "shl\trax, 32", f"mov\trbx, {A[0]}", "shr\trbx, 32",
          f"mov\trbp, {A[0]}", "sub\trbp, rax", f"mov\tr14, {A[0]}", "sbb\tr14, rbx",
          f"add\t{A[1]}, rax", f"adc\t{A[2]}, rbx", f"adc\t{A[3]}, rbp",
          f"adc\t{A[4]}, r14", f"adc\t{A[5]}, 0")
        A = A[1:] + A[:1]
        a(f"xor\t{A[5]}, {A[5]}")
    final_cmov(a, A[:4], ["rax", "rbx", "rdx", "rsi"], A[4], "rbp")
    a.epilogue()
    return a


def add_m_times_p(a, t, hi, lo, C, k):
    """t (4 words) += m*p with m in rdx, textbook carry word C (left holding the carry
    into the next word): (hi, lo) = t[j] + m*p[j] + C, mulx by p's words loaded into k;
    p2 = 0 only passes the carry on."""
    a(f"xor\t{C}, {C}")
    for j in range(4):
        if P[j] == 0:
            a(f"add\t{t[j]}, {C}", f"mov\t{C}, 0", f"adc\t{C}, 0")
            continue
        a(f"mov\t{k}, {imm(P[j])}", f"mulx\t{hi}, {lo}, {k}",
          f"add\t{lo}, {C}", f"adc\t{hi}, 0",
          f"add\t{t[j]}, {lo}", f"adc\t{hi}, 0", f"mov\t{C}, {hi}")


def sos_reduce_mulx(a, T, top, m, hi, lo, C, k):
    """Four rounds of t += m*p*2^(64i), m = T[i], on the 8-word T (+ top), textbook carry
    word, mulx by p's words; the carry runs to the top each round."""
    for i in range(4):
        a.comment(f"reduction round {i}: m = t{i}")
        a(f"mov\t{m}, {T[i]}")
        add_m_times_p(a, T[i:i + 4], hi, lo, C, k)
        a(f"add\t{T[i + 4]}, {C}")
        for r in T[i + 5:]:
            a(f"adc\t{r}, 0")
        a(f"adc\t{top}, 0")


def mul_product_scanning():
    a = Asm("p256_mul_product_scanning", """
Separated operand scanning: the whole 512-bit product first, column by column (every
a[i]*b[j] with i+j = k into a three-word accumulator; the columns spilled to the stack),
then four reduction rounds on the eight words with a carry word (mulx by p's words).
Final: sub/sbb, then a select by an sbb mask with and/xor.""")
    a.prologue()
    a("mov\trcx, rdx", "sub\trsp, 64")
    c = ["r8", "r9", "r10"]
    for r in c:
        a(f"xor\t{r}, {r}")
    for k in range(7):
        a.comment(f"column {k}")
        for i in range(4):
            j = k - i
            if 0 <= j < 4:
                a(f"mov\trdx, {q('rsi', i)}", f"mulx\tr12, r11, {q('rcx', j)}",
                  f"add\t{c[0]}, r11", f"adc\t{c[1]}, r12", f"adc\t{c[2]}, 0")
        a(f"mov\t{q('rsp', k)}, {c[0]}")
        c = c[1:] + c[:1]
        a(f"xor\t{c[2]}, {c[2]}")
    a(f"mov\t{q('rsp', 7)}, {c[0]}")
    T = ["r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
    for i, r in enumerate(T):
        a(f"mov\t{r}, {q('rsp', i)}")
    a("xor\teax, eax")
    sos_reduce_mulx(a, T, "rax", "rdx", "rbx", "rbp", "rcx", "rsi")
    final_mask(a, T[4:], ["rbx", "rbp", "rcx", "rsi"], "rax", "rdx", "r8")
    a("add\trsp, 64")
    a.epilogue()
    return a


def mul_adx():
    a = Asm("p256_mul_adx", """
Intel's ADX style: per row, the low halves of a*b[i] on the CF chain (adcx) and the
high halves on the OF chain (adox), interleaved; the reduction the same way with mulx
by p's words. Final: sub/sbb, cmovc.""")
    a.prologue()
    a("mov\trcx, rdx")
    A = ["r8", "r9", "r10", "r11", "r12", "r13"]
    h, l, z = "r14", "r15", "rax"
    a(f"xor\t{z}, {z}")
    for r in A:
        a(f"mov\t{r}, {z}")
    for i in range(4):
        a.comment(f"t += a * b[{i}]: CF chain low halves, OF chain high halves")
        a(f"mov\trdx, {q('rcx', i)}", "xor\teax, eax")
        for j in range(4):
            a(f"mulx\t{h}, {l}, {q('rsi', j)}", f"adcx\t{A[j]}, {l}", f"adox\t{A[j + 1]}, {h}")
        a(f"adcx\t{A[4]}, {z}", f"adox\t{A[5]}, {z}", f"adcx\t{A[5]}, {z}")
        a.comment("reduction: m = t0, mulx by p's words on both chains")
        a(f"mov\trdx, {A[0]}", "xor\teax, eax")
        for j in range(4):
            if P[j] == 0:
                a(f"adcx\t{A[j]}, {z}", f"adox\t{A[j + 1]}, {z}")
                continue
            a(f"mov\trbp, {imm(P[j])}", f"mulx\t{h}, {l}, rbp",
              f"adcx\t{A[j]}, {l}", f"adox\t{A[j + 1]}, {h}")
        a(f"adcx\t{A[4]}, {z}", f"adox\t{A[5]}, {z}", f"adcx\t{A[5]}, {z}")
        A = A[1:] + A[:1]
        a(f"xor\t{A[5]}, {A[5]}")
    final_cmov(a, A[:4], ["rax", "rbx", "rdx", "rsi"], A[4], "rbp")
    a.epilogue()
    return a


def mul_mulq_only():
    a = Asm("p256_mul_mulq_only", """
Textbook CIOS with mul only (no BMI2): every product, the reduction's included, is
rdx:rax = rax * r64, with a carry word. Final: sub/sbb, select by an sbb mask.""")
    a.prologue()
    a("mov\trcx, rdx")
    t = ["r8", "r9", "r10", "r11", "r12", "r13"]
    C, bi, k = "r14", "r15", "rbx"
    for r in t:
        a(f"xor\t{r}, {r}")
    for i in range(4):
        a.comment(f"t += a * b[{i}]")
        a(f"mov\t{bi}, {q('rcx', i)}", f"xor\t{C}, {C}")
        for j in range(4):
            a(f"mov\trax, {q('rsi', j)}", f"mul\t{bi}",
              f"add\trax, {C}", "adc\trdx, 0",
              f"add\t{t[j]}, rax", "adc\trdx, 0", f"mov\t{C}, rdx")
        a(f"add\t{t[4]}, {C}", f"adc\t{t[5]}, 0")
        a.comment("reduction: m = t0")
        a(f"mov\t{bi}, {t[0]}", f"xor\t{C}, {C}")
        for j in range(4):
            if P[j] == 0:
                a(f"add\t{t[j]}, {C}", f"mov\t{C}, 0", f"adc\t{C}, 0")
                continue
            a(f"mov\trax, {imm(P[j])}", f"mul\t{bi}",
              f"add\trax, {C}", "adc\trdx, 0",
              f"add\t{t[j]}, rax", "adc\trdx, 0", f"mov\t{C}, rdx")
        a(f"add\t{t[4]}, {C}", f"adc\t{t[5]}, 0")
        t = t[1:] + t[:1]
        a(f"xor\t{t[5]}, {t[5]}")
    final_mask(a, t[:4], ["rax", "rbx", "rdx", "rsi"], t[4], "rbp", "r14")
    a.epilogue()
    return a


def square_mulq_openssl():
    a = Asm("p256_square_mulq_shift", """
OpenSSL-style squaring: each a[i]*a[j] with i < j once (mul, rdx:rax), the sum doubled
by an add/adc chain, the squares a[i]^2 added; then four reduction rounds by the shape
of p (m<<32, m>>32, one mul by p3), the carry run to the top. Final: sub/sbb, cmovc.""")
    a.prologue()
    T = ["r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
    top, x = "rcx", "rbx"
    a.comment("off-diagonal products, each once")
    a("mov\trbx, QWORD PTR [rsi]")
    a("mov\trax, QWORD PTR [rsi+8]", "mul\trbx", f"mov\t{T[1]}, rax", f"mov\t{T[2]}, rdx")
    a("mov\trax, QWORD PTR [rsi+16]", "mul\trbx", f"add\t{T[2]}, rax", "adc\trdx, 0",
      f"mov\t{T[3]}, rdx")
    a("mov\trax, QWORD PTR [rsi+24]", "mul\trbx", f"add\t{T[3]}, rax", "adc\trdx, 0",
      f"mov\t{T[4]}, rdx")
    a("mov\trbx, QWORD PTR [rsi+8]")
    a("mov\trax, QWORD PTR [rsi+16]", "mul\trbx", f"add\t{T[3]}, rax", "adc\trdx, 0",
      "mov\trbp, rdx")
    a("mov\trax, QWORD PTR [rsi+24]", "mul\trbx", f"add\t{T[4]}, rax", "adc\trdx, 0",
      f"add\t{T[4]}, rbp", "adc\trdx, 0", f"mov\t{T[5]}, rdx")
    a("mov\trbx, QWORD PTR [rsi+16]")
    a("mov\trax, QWORD PTR [rsi+24]", "mul\trbx", f"add\t{T[5]}, rax", "adc\trdx, 0",
      f"mov\t{T[6]}, rdx")
    a.comment("doubled")
    a(f"xor\t{T[7]}, {T[7]}", f"add\t{T[1]}, {T[1]}")
    for r in T[2:7]:
        a(f"adc\t{r}, {r}")
    a(f"adc\t{T[7]}, 0")
    a.comment("plus the squares")
    a("mov\trax, QWORD PTR [rsi]", "mul\trax", f"mov\t{T[0]}, rax", "mov\trbp, rdx")
    a("mov\trax, QWORD PTR [rsi+8]", "mul\trax", f"add\t{T[1]}, rbp", f"adc\t{T[2]}, rax",
      "adc\trdx, 0", "mov\trbp, rdx")
    a("mov\trax, QWORD PTR [rsi+16]", "mul\trax", f"add\t{T[3]}, rbp", f"adc\t{T[4]}, rax",
      "adc\trdx, 0", "mov\trbp, rdx")
    a("mov\trax, QWORD PTR [rsi+24]", "mul\trax", f"add\t{T[5]}, rbp", f"adc\t{T[6]}, rax",
      f"adc\t{T[7]}, rdx")
    a(f"xor\t{top}, {top}")
    a("mov\trsi, " + imm(P[3]))
    for i in range(4):
        a.comment(f"reduction round {i}: m = t{i}")
        a(f"mov\trax, {T[i]}", f"mov\trbx, {T[i]}", f"shl\t{T[i]}, 32", "mul\trsi",
          "shr\trbx, 32", f"add\t{T[i + 1]}, {T[i]}", f"adc\t{T[i + 2]}, rbx",
          f"adc\t{T[i + 3]}, rax", f"adc\t{T[i + 4]}, rdx")
        for r in T[i + 5:]:
            a(f"adc\t{r}, 0")
        a(f"adc\t{top}, 0")
    final_cmov(a, T[4:], ["rax", "rbx", "rdx", "rsi"], top, "rbp")
    a.epilogue()
    return a


def square_mulx_shld():
    a = Asm("p256_square_mulx_shld", """
Squaring with mulx: each a[i]*a[j] with i < j once, the sum doubled by shld/shl (a
shift of the eight-word number by one), the squares added; then four reduction rounds
with a carry word (mulx by p's words). Final: sub/sbb, cmovc.""")
    a.prologue()
    T = ["r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
    hi, lo = "rbx", "rbp"
    a.comment("off-diagonal products, each once: rows a0, a1, a2")
    a("mov\trdx, QWORD PTR [rsi]")
    a(f"mulx\t{T[2]}, {T[1]}, QWORD PTR [rsi+8]")
    a(f"mulx\t{T[3]}, {lo}, QWORD PTR [rsi+16]", f"add\t{T[2]}, {lo}")
    a(f"mulx\t{T[4]}, {lo}, QWORD PTR [rsi+24]", f"adc\t{T[3]}, {lo}", f"adc\t{T[4]}, 0")
    a("mov\trdx, QWORD PTR [rsi+8]", f"xor\t{T[5]}, {T[5]}")
    a(f"mulx\t{hi}, {lo}, QWORD PTR [rsi+16]", f"add\t{T[3]}, {lo}", f"adc\t{T[4]}, {hi}",
      f"adc\t{T[5]}, 0")
    a(f"mulx\t{hi}, {lo}, QWORD PTR [rsi+24]", f"add\t{T[4]}, {lo}", f"adc\t{T[5]}, {hi}")
    a("mov\trdx, QWORD PTR [rsi+16]")
    a(f"mulx\t{T[6]}, {lo}, QWORD PTR [rsi+24]", f"add\t{T[5]}, {lo}", f"adc\t{T[6]}, 0")
    a.comment("doubled: the eight words shifted left by one")
    a(f"mov\t{T[7]}, {T[6]}", f"shr\t{T[7]}, 63")
    for k in range(6, 1, -1):
        a(f"shld\t{T[k]}, {T[k - 1]}, 1")
    a(f"shl\t{T[1]}, 1")
    a.comment("plus the squares")
    a("mov\trdx, QWORD PTR [rsi]", f"mulx\t{hi}, {T[0]}, rdx", f"add\t{T[1]}, {hi}")
    for i in range(1, 4):
        a(f"mov\trdx, {q('rsi', i)}", f"mulx\t{hi}, {lo}, rdx",
          f"adc\t{T[2 * i]}, {lo}", f"adc\t{T[2 * i + 1]}, {hi}")
    a("xor\teax, eax")
    sos_reduce_mulx(a, T, "rax", "rdx", hi, lo, "rcx", "rsi")
    final_cmov(a, T[4:], ["rbx", "rbp", "rcx", "rsi"], "rax", "rdx")
    a.epilogue()
    return a


VARIANTS = [mul_mulx_cios, mul_mulq_openssl, mul_mulx_shifts, mul_product_scanning,
            mul_adx, mul_mulq_only, square_mulq_openssl, square_mulx_shld]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for v in VARIANTS:
        a = v()
        with open(os.path.join(out, a.name + ".s"), "w") as f:
            f.write(a.text())
        print(a.name)
