# OpenSSL-style squaring: each a[i]*a[j] with i < j once (mul, rdx:rax), the sum doubled
# by an add/adc chain, the squares a[i]^2 added; then four reduction rounds by the shape
# of p (m<<32, m>>32, one mul by p3), the carry run to the top. Final: sub/sbb, cmovc.
	.intel_syntax noprefix
	.text
	.globl	p256_square_mulq_shift
	.type	p256_square_mulq_shift, @function
p256_square_mulq_shift:
	push	rbx
	push	rbp
	push	r12
	push	r13
	push	r14
	push	r15
	# off-diagonal products, each once
	mov	rbx, QWORD PTR [rsi]
	mov	rax, QWORD PTR [rsi+8]
	mul	rbx
	mov	r9, rax
	mov	r10, rdx
	mov	rax, QWORD PTR [rsi+16]
	mul	rbx
	add	r10, rax
	adc	rdx, 0
	mov	r11, rdx
	mov	rax, QWORD PTR [rsi+24]
	mul	rbx
	add	r11, rax
	adc	rdx, 0
	mov	r12, rdx
	mov	rbx, QWORD PTR [rsi+8]
	mov	rax, QWORD PTR [rsi+16]
	mul	rbx
	add	r11, rax
	adc	rdx, 0
	mov	rbp, rdx
	mov	rax, QWORD PTR [rsi+24]
	mul	rbx
	add	r12, rax
	adc	rdx, 0
	add	r12, rbp
	adc	rdx, 0
	mov	r13, rdx
	mov	rbx, QWORD PTR [rsi+16]
	mov	rax, QWORD PTR [rsi+24]
	mul	rbx
	add	r13, rax
	adc	rdx, 0
	mov	r14, rdx
	# doubled
	xor	r15, r15
	add	r9, r9
	adc	r10, r10
	adc	r11, r11
	adc	r12, r12
	adc	r13, r13
	adc	r14, r14
	adc	r15, 0
	# plus the squares
	mov	rax, QWORD PTR [rsi]
	mul	rax
	mov	r8, rax
	mov	rbp, rdx
	mov	rax, QWORD PTR [rsi+8]
	mul	rax
	add	r9, rbp
	adc	r10, rax
	adc	rdx, 0
	mov	rbp, rdx
	mov	rax, QWORD PTR [rsi+16]
	mul	rax
	add	r11, rbp
	adc	r12, rax
	adc	rdx, 0
	mov	rbp, rdx
	mov	rax, QWORD PTR [rsi+24]
	mul	rax
	add	r13, rbp
	adc	r14, rax
	adc	r15, rdx
	xor	rcx, rcx
	mov	rsi, 0xffffffff00000001
	# reduction round 0: m = t0
	mov	rax, r8
	mov	rbx, r8
	shl	r8, 32
	mul	rsi
	shr	rbx, 32
	add	r9, r8
	adc	r10, rbx
	adc	r11, rax
	adc	r12, rdx
	adc	r13, 0
	adc	r14, 0
	adc	r15, 0
	adc	rcx, 0
	# reduction round 1: m = t1
	mov	rax, r9
	mov	rbx, r9
	shl	r9, 32
	mul	rsi
	shr	rbx, 32
	add	r10, r9
	adc	r11, rbx
	adc	r12, rax
	adc	r13, rdx
	adc	r14, 0
	adc	r15, 0
	adc	rcx, 0
	# reduction round 2: m = t2
	mov	rax, r10
	mov	rbx, r10
	shl	r10, 32
	mul	rsi
	shr	rbx, 32
	add	r11, r10
	adc	r12, rbx
	adc	r13, rax
	adc	r14, rdx
	adc	r15, 0
	adc	rcx, 0
	# reduction round 3: m = t3
	mov	rax, r11
	mov	rbx, r11
	shl	r11, 32
	mul	rsi
	shr	rbx, 32
	add	r12, r11
	adc	r13, rbx
	adc	r14, rax
	adc	r15, rdx
	adc	rcx, 0
	# t - p; keep t where it borrows
	mov	rax, r12
	mov	rbx, r13
	mov	rdx, r14
	mov	rsi, r15
	sub	rax, -1
	mov	rbp, 0x00000000ffffffff
	sbb	rbx, rbp
	sbb	rdx, 0
	mov	rbp, 0xffffffff00000001
	sbb	rsi, rbp
	sbb	rcx, 0
	cmovc	rax, r12
	cmovc	rbx, r13
	cmovc	rdx, r14
	cmovc	rsi, r15
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
	.size	p256_square_mulq_shift, .-p256_square_mulq_shift
	.section	.note.GNU-stack,"",@progbits
