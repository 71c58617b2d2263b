# Textbook CIOS with mul only (no BMI2): every product, the reduction's included, is
# rdx:rax = rax * r64, with a carry word. Final: sub/sbb, select by an sbb mask.
	.intel_syntax noprefix
	.text
	.globl	p256_mul_mulq_only
	.type	p256_mul_mulq_only, @function
p256_mul_mulq_only:
	push	rbx
	push	rbp
	push	r12
	push	r13
	push	r14
	push	r15
	mov	rcx, rdx
	xor	r8, r8
	xor	r9, r9
	xor	r10, r10
	xor	r11, r11
	xor	r12, r12
	xor	r13, r13
	# t += a * b[0]
	mov	r15, QWORD PTR [rcx]
	xor	r14, r14
	mov	rax, QWORD PTR [rsi]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r8, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+8]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r9, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+16]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r10, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+24]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r11, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r12, r14
	adc	r13, 0
	# reduction: m = t0
	mov	r15, r8
	xor	r14, r14
	mov	rax, 0xffffffffffffffff
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r8, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, 0x00000000ffffffff
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r9, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r10, r14
	mov	r14, 0
	adc	r14, 0
	mov	rax, 0xffffffff00000001
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r11, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r12, r14
	adc	r13, 0
	xor	r8, r8
	# t += a * b[1]
	mov	r15, QWORD PTR [rcx+8]
	xor	r14, r14
	mov	rax, QWORD PTR [rsi]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r9, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+8]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r10, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+16]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r11, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+24]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r12, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r13, r14
	adc	r8, 0
	# reduction: m = t0
	mov	r15, r9
	xor	r14, r14
	mov	rax, 0xffffffffffffffff
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r9, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, 0x00000000ffffffff
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r10, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r11, r14
	mov	r14, 0
	adc	r14, 0
	mov	rax, 0xffffffff00000001
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r12, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r13, r14
	adc	r8, 0
	xor	r9, r9
	# t += a * b[2]
	mov	r15, QWORD PTR [rcx+16]
	xor	r14, r14
	mov	rax, QWORD PTR [rsi]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r10, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+8]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r11, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+16]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r12, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+24]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r13, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r8, r14
	adc	r9, 0
	# reduction: m = t0
	mov	r15, r10
	xor	r14, r14
	mov	rax, 0xffffffffffffffff
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r10, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, 0x00000000ffffffff
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r11, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r12, r14
	mov	r14, 0
	adc	r14, 0
	mov	rax, 0xffffffff00000001
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r13, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r8, r14
	adc	r9, 0
	xor	r10, r10
	# t += a * b[3]
	mov	r15, QWORD PTR [rcx+24]
	xor	r14, r14
	mov	rax, QWORD PTR [rsi]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r11, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+8]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r12, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+16]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r13, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, QWORD PTR [rsi+24]
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r8, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r9, r14
	adc	r10, 0
	# reduction: m = t0
	mov	r15, r11
	xor	r14, r14
	mov	rax, 0xffffffffffffffff
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r11, rax
	adc	rdx, 0
	mov	r14, rdx
	mov	rax, 0x00000000ffffffff
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r12, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r13, r14
	mov	r14, 0
	adc	r14, 0
	mov	rax, 0xffffffff00000001
	mul	r15
	add	rax, r14
	adc	rdx, 0
	add	r8, rax
	adc	rdx, 0
	mov	r14, rdx
	add	r9, r14
	adc	r10, 0
	xor	r11, r11
	# d = t - p; mask = all ones where it borrows; r = d ^ ((t ^ d) & mask)
	mov	rax, r12
	mov	rbx, r13
	mov	rdx, r8
	mov	rsi, r9
	sub	rax, -1
	mov	rbp, 0x00000000ffffffff
	sbb	rbx, rbp
	sbb	rdx, 0
	mov	rbp, 0xffffffff00000001
	sbb	rsi, rbp
	sbb	r10, 0
	sbb	r14, r14
	xor	r12, rax
	and	r12, r14
	xor	rax, r12
	mov	QWORD PTR [rdi], rax
	xor	r13, rbx
	and	r13, r14
	xor	rbx, r13
	mov	QWORD PTR [rdi+8], rbx
	xor	r8, rdx
	and	r8, r14
	xor	rdx, r8
	mov	QWORD PTR [rdi+16], rdx
	xor	r9, rsi
	and	r9, r14
	xor	rsi, r9
	mov	QWORD PTR [rdi+24], rsi
	pop	r15
	pop	r14
	pop	r13
	pop	r12
	pop	rbp
	pop	rbx
	ret
	.size	p256_mul_mulq_only, .-p256_mul_mulq_only
	.section	.note.GNU-stack,"",@progbits
