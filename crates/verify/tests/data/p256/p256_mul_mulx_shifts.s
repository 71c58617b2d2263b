# Products by mulx added as two carry chains per row (low halves, then high halves); the
# reduction has no multiplication at all: m*p3 = m*2^64 + m - m*2^32 by sub/sbb of the
# shifted halves, beside m<<32 and m>>32. Final: sub/sbb, cmovc.
	.intel_syntax noprefix
	.text
	.globl	p256_mul_mulx_shifts
	.type	p256_mul_mulx_shifts, @function
p256_mul_mulx_shifts:
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
	# t += a * b[0]: low halves, then high halves
	mov	rdx, QWORD PTR [rcx]
	mulx	rax, r15, QWORD PTR [rsi]
	add	r8, r15
	mulx	rbx, r15, QWORD PTR [rsi+8]
	adc	r9, r15
	mulx	rbp, r15, QWORD PTR [rsi+16]
	adc	r10, r15
	mulx	r14, r15, QWORD PTR [rsi+24]
	adc	r11, r15
	adc	r12, 0
	add	r9, rax
	adc	r10, rbx
	adc	r11, rbp
	adc	r12, r14
	adc	r13, 0
	# reduction by shifts: m = t0
	mov	rax, r8
	shl	rax, 32
	mov	rbx, r8
	shr	rbx, 32
	mov	rbp, r8
	sub	rbp, rax
	mov	r14, r8
	sbb	r14, rbx
	add	r9, rax
	adc	r10, rbx
	adc	r11, rbp
	adc	r12, r14
	adc	r13, 0
	xor	r8, r8
	# t += a * b[1]: low halves, then high halves
	mov	rdx, QWORD PTR [rcx+8]
	mulx	rax, r15, QWORD PTR [rsi]
	add	r9, r15
	mulx	rbx, r15, QWORD PTR [rsi+8]
	adc	r10, r15
	mulx	rbp, r15, QWORD PTR [rsi+16]
	adc	r11, r15
	mulx	r14, r15, QWORD PTR [rsi+24]
	adc	r12, r15
	adc	r13, 0
	add	r10, rax
	adc	r11, rbx
	adc	r12, rbp
	adc	r13, r14
	adc	r8, 0
	# reduction by shifts: m = t0
	mov	rax, r9
	shl	rax, 32
	mov	rbx, r9
	shr	rbx, 32
	mov	rbp, r9
	sub	rbp, rax
	mov	r14, r9
	sbb	r14, rbx
	add	r10, rax
	adc	r11, rbx
	adc	r12, rbp
	adc	r13, r14
	adc	r8, 0
	xor	r9, r9
	# t += a * b[2]: low halves, then high halves
	mov	rdx, QWORD PTR [rcx+16]
	mulx	rax, r15, QWORD PTR [rsi]
	add	r10, r15
	mulx	rbx, r15, QWORD PTR [rsi+8]
	adc	r11, r15
	mulx	rbp, r15, QWORD PTR [rsi+16]
	adc	r12, r15
	mulx	r14, r15, QWORD PTR [rsi+24]
	adc	r13, r15
	adc	r8, 0
	add	r11, rax
	adc	r12, rbx
	adc	r13, rbp
	adc	r8, r14
	adc	r9, 0
	# reduction by shifts: m = t0
	mov	rax, r10
	shl	rax, 32
	mov	rbx, r10
	shr	rbx, 32
	mov	rbp, r10
	sub	rbp, rax
	mov	r14, r10
	sbb	r14, rbx
	add	r11, rax
	adc	r12, rbx
	adc	r13, rbp
	adc	r8, r14
	adc	r9, 0
	xor	r10, r10
	# t += a * b[3]: low halves, then high halves
	mov	rdx, QWORD PTR [rcx+24]
	mulx	rax, r15, QWORD PTR [rsi]
	add	r11, r15
	mulx	rbx, r15, QWORD PTR [rsi+8]
	adc	r12, r15
	mulx	rbp, r15, QWORD PTR [rsi+16]
	adc	r13, r15
	mulx	r14, r15, QWORD PTR [rsi+24]
	adc	r8, r15
	adc	r9, 0
	add	r12, rax
	adc	r13, rbx
	adc	r8, rbp
	adc	r9, r14
	adc	r10, 0
	# reduction by shifts: m = t0
	mov	rax, r11
	shl	rax, 32
	mov	rbx, r11
	shr	rbx, 32
	mov	rbp, r11
	sub	rbp, rax
	mov	r14, r11
	sbb	r14, rbx
	add	r12, rax
	adc	r13, rbx
	adc	r8, rbp
	adc	r9, r14
	adc	r10, 0
	xor	r11, r11
	# t - p; keep t where it borrows
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
	cmovc	rax, r12
	cmovc	rbx, r13
	cmovc	rdx, r8
	cmovc	rsi, r9
	mov	QWORD PTR [rdi], rax
	mov	QWORD PTR [rdi+8], rbx
	mov	QWORD PTR [rdi+16], rdx
	mov	QWORD PTR [rdi+24], rsi
	pop	r15
	pop	r14
	pop	r13
	pop	r12
	pop	rbp
	pop	rbx
	ret
	.size	p256_mul_mulx_shifts, .-p256_mul_mulx_shifts
	.section	.note.GNU-stack,"",@progbits
