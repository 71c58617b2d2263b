# Squaring with mulx: each a[i]*a[j] with i < j once, the sum doubled by shld/shl (a
# shift of the eight-word number by one), the squares added; then four reduction rounds
# with a carry word (mulx by p's words). Final: sub/sbb, cmovc.
	.intel_syntax noprefix
	.text
	.globl	p256_square_mulx_shld
	.type	p256_square_mulx_shld, @function
p256_square_mulx_shld:
	push	rbx
	push	rbp
	push	r12
	push	r13
	push	r14
	push	r15
	# off-diagonal products, each once: rows a0, a1, a2
	mov	rdx, QWORD PTR [rsi]
	mulx	r10, r9, QWORD PTR [rsi+8]
	mulx	r11, rbp, QWORD PTR [rsi+16]
	add	r10, rbp
	mulx	r12, rbp, QWORD PTR [rsi+24]
	adc	r11, rbp
	adc	r12, 0
	mov	rdx, QWORD PTR [rsi+8]
	xor	r13, r13
	mulx	rbx, rbp, QWORD PTR [rsi+16]
	add	r11, rbp
	adc	r12, rbx
	adc	r13, 0
	mulx	rbx, rbp, QWORD PTR [rsi+24]
	add	r12, rbp
	adc	r13, rbx
	mov	rdx, QWORD PTR [rsi+16]
	mulx	r14, rbp, QWORD PTR [rsi+24]
	add	r13, rbp
	adc	r14, 0
	# doubled: the eight words shifted left by one
	mov	r15, r14
	shr	r15, 63
	shld	r14, r13, 1
	shld	r13, r12, 1
	shld	r12, r11, 1
	shld	r11, r10, 1
	shld	r10, r9, 1
	shl	r9, 1
	# plus the squares
	mov	rdx, QWORD PTR [rsi]
	mulx	rbx, r8, rdx
	add	r9, rbx
	mov	rdx, QWORD PTR [rsi+8]
	mulx	rbx, rbp, rdx
	adc	r10, rbp
	adc	r11, rbx
	mov	rdx, QWORD PTR [rsi+16]
	mulx	rbx, rbp, rdx
	adc	r12, rbp
	adc	r13, rbx
	mov	rdx, QWORD PTR [rsi+24]
	mulx	rbx, rbp, rdx
	adc	r14, rbp
	adc	r15, rbx
	xor	eax, eax
	# reduction round 0: m = t0
	mov	rdx, r8
	xor	rcx, rcx
	mov	rsi, 0xffffffffffffffff
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r8, rbp
	adc	rbx, 0
	mov	rcx, rbx
	mov	rsi, 0x00000000ffffffff
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r9, rbp
	adc	rbx, 0
	mov	rcx, rbx
	add	r10, rcx
	mov	rcx, 0
	adc	rcx, 0
	mov	rsi, 0xffffffff00000001
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r11, rbp
	adc	rbx, 0
	mov	rcx, rbx
	add	r12, rcx
	adc	r13, 0
	adc	r14, 0
	adc	r15, 0
	adc	rax, 0
	# reduction round 1: m = t1
	mov	rdx, r9
	xor	rcx, rcx
	mov	rsi, 0xffffffffffffffff
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r9, rbp
	adc	rbx, 0
	mov	rcx, rbx
	mov	rsi, 0x00000000ffffffff
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r10, rbp
	adc	rbx, 0
	mov	rcx, rbx
	add	r11, rcx
	mov	rcx, 0
	adc	rcx, 0
	mov	rsi, 0xffffffff00000001
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r12, rbp
	adc	rbx, 0
	mov	rcx, rbx
	add	r13, rcx
	adc	r14, 0
	adc	r15, 0
	adc	rax, 0
	# reduction round 2: m = t2
	mov	rdx, r10
	xor	rcx, rcx
	mov	rsi, 0xffffffffffffffff
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r10, rbp
	adc	rbx, 0
	mov	rcx, rbx
	mov	rsi, 0x00000000ffffffff
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r11, rbp
	adc	rbx, 0
	mov	rcx, rbx
	add	r12, rcx
	mov	rcx, 0
	adc	rcx, 0
	mov	rsi, 0xffffffff00000001
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r13, rbp
	adc	rbx, 0
	mov	rcx, rbx
	add	r14, rcx
	adc	r15, 0
	adc	rax, 0
	# reduction round 3: m = t3
	mov	rdx, r11
	xor	rcx, rcx
	mov	rsi, 0xffffffffffffffff
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r11, rbp
	adc	rbx, 0
	mov	rcx, rbx
	mov	rsi, 0x00000000ffffffff
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r12, rbp
	adc	rbx, 0
	mov	rcx, rbx
	add	r13, rcx
	mov	rcx, 0
	adc	rcx, 0
	mov	rsi, 0xffffffff00000001
	mulx	rbx, rbp, rsi
	add	rbp, rcx
	adc	rbx, 0
	add	r14, rbp
	adc	rbx, 0
	mov	rcx, rbx
	add	r15, rcx
	adc	rax, 0
	# t - p; keep t where it borrows
	mov	rbx, r12
	mov	rbp, r13
	mov	rcx, r14
	mov	rsi, r15
	sub	rbx, -1
	mov	rdx, 0x00000000ffffffff
	sbb	rbp, rdx
	sbb	rcx, 0
	mov	rdx, 0xffffffff00000001
	sbb	rsi, rdx
	sbb	rax, 0
	cmovc	rbx, r12
	cmovc	rbp, r13
	cmovc	rcx, r14
	cmovc	rsi, r15
	mov	QWORD PTR [rdi], rbx
	mov	QWORD PTR [rdi+8], rbp
	mov	QWORD PTR [rdi+16], rcx
	mov	QWORD PTR [rdi+24], rsi
	pop	r15
	pop	r14
	pop	r13
	pop	r12
	pop	rbp
	pop	rbx
	ret
	.size	p256_square_mulx_shld, .-p256_square_mulx_shld
	.section	.note.GNU-stack,"",@progbits
