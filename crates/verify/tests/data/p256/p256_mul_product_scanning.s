# Separated operand scanning: the whole 512-bit product first, column by column (every
# a[i]*b[j] with i+j = k into a three-word accumulator; the columns spilled to the stack),
# then four reduction rounds on the eight words with a carry word (mulx by p's words).
# Final: sub/sbb, then a select by an sbb mask with and/xor.
	.intel_syntax noprefix
	.text
	.globl	p256_mul_product_scanning
	.type	p256_mul_product_scanning, @function
p256_mul_product_scanning:
	push	rbx
	push	rbp
	push	r12
	push	r13
	push	r14
	push	r15
	mov	rcx, rdx
	sub	rsp, 64
	xor	r8, r8
	xor	r9, r9
	xor	r10, r10
	# column 0
	mov	rdx, QWORD PTR [rsi]
	mulx	r12, r11, QWORD PTR [rcx]
	add	r8, r11
	adc	r9, r12
	adc	r10, 0
	mov	QWORD PTR [rsp], r8
	xor	r8, r8
	# column 1
	mov	rdx, QWORD PTR [rsi]
	mulx	r12, r11, QWORD PTR [rcx+8]
	add	r9, r11
	adc	r10, r12
	adc	r8, 0
	mov	rdx, QWORD PTR [rsi+8]
	mulx	r12, r11, QWORD PTR [rcx]
	add	r9, r11
	adc	r10, r12
	adc	r8, 0
	mov	QWORD PTR [rsp+8], r9
	xor	r9, r9
	# column 2
	mov	rdx, QWORD PTR [rsi]
	mulx	r12, r11, QWORD PTR [rcx+16]
	add	r10, r11
	adc	r8, r12
	adc	r9, 0
	mov	rdx, QWORD PTR [rsi+8]
	mulx	r12, r11, QWORD PTR [rcx+8]
	add	r10, r11
	adc	r8, r12
	adc	r9, 0
	mov	rdx, QWORD PTR [rsi+16]
	mulx	r12, r11, QWORD PTR [rcx]
	add	r10, r11
	adc	r8, r12
	adc	r9, 0
	mov	QWORD PTR [rsp+16], r10
	xor	r10, r10
	# column 3
	mov	rdx, QWORD PTR [rsi]
	mulx	r12, r11, QWORD PTR [rcx+24]
	add	r8, r11
	adc	r9, r12
	adc	r10, 0
	mov	rdx, QWORD PTR [rsi+8]
	mulx	r12, r11, QWORD PTR [rcx+16]
	add	r8, r11
	adc	r9, r12
	adc	r10, 0
	mov	rdx, QWORD PTR [rsi+16]
	mulx	r12, r11, QWORD PTR [rcx+8]
	add	r8, r11
	adc	r9, r12
	adc	r10, 0
	mov	rdx, QWORD PTR [rsi+24]
	mulx	r12, r11, QWORD PTR [rcx]
	add	r8, r11
	adc	r9, r12
	adc	r10, 0
	mov	QWORD PTR [rsp+24], r8
	xor	r8, r8
	# column 4
	mov	rdx, QWORD PTR [rsi+8]
	mulx	r12, r11, QWORD PTR [rcx+24]
	add	r9, r11
	adc	r10, r12
	adc	r8, 0
	mov	rdx, QWORD PTR [rsi+16]
	mulx	r12, r11, QWORD PTR [rcx+16]
	add	r9, r11
	adc	r10, r12
	adc	r8, 0
	mov	rdx, QWORD PTR [rsi+24]
	mulx	r12, r11, QWORD PTR [rcx+8]
	add	r9, r11
	adc	r10, r12
	adc	r8, 0
	mov	QWORD PTR [rsp+32], r9
	xor	r9, r9
	# column 5
	mov	rdx, QWORD PTR [rsi+16]
	mulx	r12, r11, QWORD PTR [rcx+24]
	add	r10, r11
	adc	r8, r12
	adc	r9, 0
	mov	rdx, QWORD PTR [rsi+24]
	mulx	r12, r11, QWORD PTR [rcx+16]
	add	r10, r11
	adc	r8, r12
	adc	r9, 0
	mov	QWORD PTR [rsp+40], r10
	xor	r10, r10
	# column 6
	mov	rdx, QWORD PTR [rsi+24]
	mulx	r12, r11, QWORD PTR [rcx+24]
	add	r8, r11
	adc	r9, r12
	adc	r10, 0
	mov	QWORD PTR [rsp+48], r8
	xor	r8, r8
	mov	QWORD PTR [rsp+56], r9
	mov	r8, QWORD PTR [rsp]
	mov	r9, QWORD PTR [rsp+8]
	mov	r10, QWORD PTR [rsp+16]
	mov	r11, QWORD PTR [rsp+24]
	mov	r12, QWORD PTR [rsp+32]
	mov	r13, QWORD PTR [rsp+40]
	mov	r14, QWORD PTR [rsp+48]
	mov	r15, QWORD PTR [rsp+56]
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
	# d = t - p; mask = all ones where it borrows; r = d ^ ((t ^ d) & mask)
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
	sbb	r8, r8
	xor	r12, rbx
	and	r12, r8
	xor	rbx, r12
	mov	QWORD PTR [rdi], rbx
	xor	r13, rbp
	and	r13, r8
	xor	rbp, r13
	mov	QWORD PTR [rdi+8], rbp
	xor	r14, rcx
	and	r14, r8
	xor	rcx, r14
	mov	QWORD PTR [rdi+16], rcx
	xor	r15, rsi
	and	r15, r8
	xor	rsi, r15
	mov	QWORD PTR [rdi+24], rsi
	add	rsp, 64
	pop	r15
	pop	r14
	pop	r13
	pop	r12
	pop	rbp
	pop	rbx
	ret
	.size	p256_mul_product_scanning, .-p256_mul_product_scanning
	.section	.note.GNU-stack,"",@progbits
