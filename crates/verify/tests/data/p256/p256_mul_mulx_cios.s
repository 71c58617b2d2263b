# Textbook CIOS Montgomery multiplication with a carry word: (hi, lo) = t[j] + a[j]*b[i]
# + C one word at a time, products by mulx; the reduction multiplies m = t0 by the words
# of p held in a register (p2 = 0 only passes the carry on). Final: sub/sbb, cmovc.
	.intel_syntax noprefix
	.text
	.globl	p256_mul_mulx_cios
	.type	p256_mul_mulx_cios, @function
p256_mul_mulx_cios:
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
	mov	rdx, QWORD PTR [rcx]
	xor	r14, r14
	mulx	rbx, rax, QWORD PTR [rsi]
	add	rax, r14
	adc	rbx, 0
	add	r8, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+8]
	add	rax, r14
	adc	rbx, 0
	add	r9, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+16]
	add	rax, r14
	adc	rbx, 0
	add	r10, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+24]
	add	rax, r14
	adc	rbx, 0
	add	r11, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r12, r14
	adc	r13, 0
	# t = (t + m*p) / 2^64, m = t0
	mov	rdx, r8
	xor	r14, r14
	mov	rbp, 0xffffffffffffffff
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r8, rax
	adc	rbx, 0
	mov	r14, rbx
	mov	rbp, 0x00000000ffffffff
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r9, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r10, r14
	mov	r14, 0
	adc	r14, 0
	mov	rbp, 0xffffffff00000001
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r11, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r12, r14
	adc	r13, 0
	xor	r8, r8
	# t += a * b[1]
	mov	rdx, QWORD PTR [rcx+8]
	xor	r14, r14
	mulx	rbx, rax, QWORD PTR [rsi]
	add	rax, r14
	adc	rbx, 0
	add	r9, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+8]
	add	rax, r14
	adc	rbx, 0
	add	r10, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+16]
	add	rax, r14
	adc	rbx, 0
	add	r11, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+24]
	add	rax, r14
	adc	rbx, 0
	add	r12, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r13, r14
	adc	r8, 0
	# t = (t + m*p) / 2^64, m = t0
	mov	rdx, r9
	xor	r14, r14
	mov	rbp, 0xffffffffffffffff
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r9, rax
	adc	rbx, 0
	mov	r14, rbx
	mov	rbp, 0x00000000ffffffff
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r10, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r11, r14
	mov	r14, 0
	adc	r14, 0
	mov	rbp, 0xffffffff00000001
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r12, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r13, r14
	adc	r8, 0
	xor	r9, r9
	# t += a * b[2]
	mov	rdx, QWORD PTR [rcx+16]
	xor	r14, r14
	mulx	rbx, rax, QWORD PTR [rsi]
	add	rax, r14
	adc	rbx, 0
	add	r10, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+8]
	add	rax, r14
	adc	rbx, 0
	add	r11, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+16]
	add	rax, r14
	adc	rbx, 0
	add	r12, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+24]
	add	rax, r14
	adc	rbx, 0
	add	r13, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r8, r14
	adc	r9, 0
	# t = (t + m*p) / 2^64, m = t0
	mov	rdx, r10
	xor	r14, r14
	mov	rbp, 0xffffffffffffffff
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r10, rax
	adc	rbx, 0
	mov	r14, rbx
	mov	rbp, 0x00000000ffffffff
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r11, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r12, r14
	mov	r14, 0
	adc	r14, 0
	mov	rbp, 0xffffffff00000001
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r13, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r8, r14
	adc	r9, 0
	xor	r10, r10
	# t += a * b[3]
	mov	rdx, QWORD PTR [rcx+24]
	xor	r14, r14
	mulx	rbx, rax, QWORD PTR [rsi]
	add	rax, r14
	adc	rbx, 0
	add	r11, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+8]
	add	rax, r14
	adc	rbx, 0
	add	r12, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+16]
	add	rax, r14
	adc	rbx, 0
	add	r13, rax
	adc	rbx, 0
	mov	r14, rbx
	mulx	rbx, rax, QWORD PTR [rsi+24]
	add	rax, r14
	adc	rbx, 0
	add	r8, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r9, r14
	adc	r10, 0
	# t = (t + m*p) / 2^64, m = t0
	mov	rdx, r11
	xor	r14, r14
	mov	rbp, 0xffffffffffffffff
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r11, rax
	adc	rbx, 0
	mov	r14, rbx
	mov	rbp, 0x00000000ffffffff
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r12, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r13, r14
	mov	r14, 0
	adc	r14, 0
	mov	rbp, 0xffffffff00000001
	mulx	rbx, rax, rbp
	add	rax, r14
	adc	rbx, 0
	add	r8, rax
	adc	rbx, 0
	mov	r14, rbx
	add	r9, r14
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
	.size	p256_mul_mulx_cios, .-p256_mul_mulx_cios
	.section	.note.GNU-stack,"",@progbits
