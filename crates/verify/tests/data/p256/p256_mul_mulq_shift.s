# OpenSSL-style: products by mul (rdx:rax), one row per word of b with a carry word; the
# reduction uses the shape of p: m*(p0 + p1*2^64) + t0 = m*2^96 when m = t0, added as
# m<<32 and m>>32, and m*p3 by one mul. Final: sub/sbb, cmovc.
	.intel_syntax noprefix
	.text
	.globl	p256_mul_mulq_shift
	.type	p256_mul_mulq_shift, @function
p256_mul_mulq_shift:
	push	rbx
	push	rbp
	push	r12
	push	r13
	push	r14
	push	r15
	mov	rcx, rdx
	mov	rbx, 0xffffffff00000001
	# t = a * b[0]
	mov	rax, QWORD PTR [rcx]
	mov	r15, rax
	mul	QWORD PTR [rsi]
	mov	r8, rax
	mov	rax, r15
	mov	r9, rdx
	mul	QWORD PTR [rsi+8]
	add	r9, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r10, rdx
	mul	QWORD PTR [rsi+16]
	add	r10, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r11, rdx
	mul	QWORD PTR [rsi+24]
	add	r11, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r12, rdx
	xor	r13, r13
	# reduction: m = t0; t += m*2^96 (as m<<32, m>>32) + m*p3*2^192
	mov	rax, r8
	mov	r15, r8
	shl	r8, 32
	mul	rbx
	shr	r15, 32
	add	r9, r8
	adc	r10, r15
	adc	r11, rax
	adc	r12, rdx
	adc	r13, 0
	xor	r8, r8
	# t += a * b[1]
	mov	rax, QWORD PTR [rcx+8]
	mov	r15, rax
	mul	QWORD PTR [rsi]
	add	r9, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r14, rdx
	mul	QWORD PTR [rsi+8]
	add	r10, r14
	adc	rdx, 0
	add	r10, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r14, rdx
	mul	QWORD PTR [rsi+16]
	add	r11, r14
	adc	rdx, 0
	add	r11, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r14, rdx
	mul	QWORD PTR [rsi+24]
	add	r12, r14
	adc	rdx, 0
	add	r12, rax
	adc	r13, rdx
	adc	r8, 0
	# reduction: m = t0; t += m*2^96 (as m<<32, m>>32) + m*p3*2^192
	mov	rax, r9
	mov	r15, r9
	shl	r9, 32
	mul	rbx
	shr	r15, 32
	add	r10, r9
	adc	r11, r15
	adc	r12, rax
	adc	r13, rdx
	adc	r8, 0
	xor	r9, r9
	# t += a * b[2]
	mov	rax, QWORD PTR [rcx+16]
	mov	r15, rax
	mul	QWORD PTR [rsi]
	add	r10, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r14, rdx
	mul	QWORD PTR [rsi+8]
	add	r11, r14
	adc	rdx, 0
	add	r11, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r14, rdx
	mul	QWORD PTR [rsi+16]
	add	r12, r14
	adc	rdx, 0
	add	r12, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r14, rdx
	mul	QWORD PTR [rsi+24]
	add	r13, r14
	adc	rdx, 0
	add	r13, rax
	adc	r8, rdx
	adc	r9, 0
	# reduction: m = t0; t += m*2^96 (as m<<32, m>>32) + m*p3*2^192
	mov	rax, r10
	mov	r15, r10
	shl	r10, 32
	mul	rbx
	shr	r15, 32
	add	r11, r10
	adc	r12, r15
	adc	r13, rax
	adc	r8, rdx
	adc	r9, 0
	xor	r10, r10
	# t += a * b[3]
	mov	rax, QWORD PTR [rcx+24]
	mov	r15, rax
	mul	QWORD PTR [rsi]
	add	r11, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r14, rdx
	mul	QWORD PTR [rsi+8]
	add	r12, r14
	adc	rdx, 0
	add	r12, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r14, rdx
	mul	QWORD PTR [rsi+16]
	add	r13, r14
	adc	rdx, 0
	add	r13, rax
	mov	rax, r15
	adc	rdx, 0
	mov	r14, rdx
	mul	QWORD PTR [rsi+24]
	add	r8, r14
	adc	rdx, 0
	add	r8, rax
	adc	r9, rdx
	adc	r10, 0
	# reduction: m = t0; t += m*2^96 (as m<<32, m>>32) + m*p3*2^192
	mov	rax, r11
	mov	r15, r11
	shl	r11, 32
	mul	rbx
	shr	r15, 32
	add	r12, r11
	adc	r13, r15
	adc	r8, rax
	adc	r9, rdx
	adc	r10, 0
	xor	r11, r11
	# t - p; keep t where it borrows
	mov	rax, r12
	mov	rdx, r13
	mov	rsi, r8
	mov	rcx, r9
	sub	rax, -1
	mov	rbp, 0x00000000ffffffff
	sbb	rdx, rbp
	sbb	rsi, 0
	mov	rbp, 0xffffffff00000001
	sbb	rcx, rbp
	sbb	r10, 0
	cmovc	rax, r12
	cmovc	rdx, r13
	cmovc	rsi, r8
	cmovc	rcx, r9
	mov	QWORD PTR [rdi], rax
	mov	QWORD PTR [rdi+8], rdx
	mov	QWORD PTR [rdi+16], rsi
	mov	QWORD PTR [rdi+24], rcx
	pop	r15
	pop	r14
	pop	r13
	pop	r12
	pop	rbp
	pop	rbx
	ret
	.size	p256_mul_mulq_shift, .-p256_mul_mulq_shift
	.section	.note.GNU-stack,"",@progbits
