# Intel's ADX style: per row, the low halves of a*b[i] on the CF chain (adcx) and the
# high halves on the OF chain (adox), interleaved; the reduction the same way with mulx
# by p's words. Final: sub/sbb, cmovc.
	.intel_syntax noprefix
	.text
	.globl	p256_mul_adx
	.type	p256_mul_adx, @function
p256_mul_adx:
	push	rbx
	push	rbp
	push	r12
	push	r13
	push	r14
	push	r15
	mov	rcx, rdx
	xor	rax, rax
	mov	r8, rax
	mov	r9, rax
	mov	r10, rax
	mov	r11, rax
	mov	r12, rax
	mov	r13, rax
	# t += a * b[0]: CF chain low halves, OF chain high halves
	mov	rdx, QWORD PTR [rcx]
	xor	eax, eax
	mulx	r14, r15, QWORD PTR [rsi]
	adcx	r8, r15
	adox	r9, r14
	mulx	r14, r15, QWORD PTR [rsi+8]
	adcx	r9, r15
	adox	r10, r14
	mulx	r14, r15, QWORD PTR [rsi+16]
	adcx	r10, r15
	adox	r11, r14
	mulx	r14, r15, QWORD PTR [rsi+24]
	adcx	r11, r15
	adox	r12, r14
	adcx	r12, rax
	adox	r13, rax
	adcx	r13, rax
	# reduction: m = t0, mulx by p's words on both chains
	mov	rdx, r8
	xor	eax, eax
	mov	rbp, 0xffffffffffffffff
	mulx	r14, r15, rbp
	adcx	r8, r15
	adox	r9, r14
	mov	rbp, 0x00000000ffffffff
	mulx	r14, r15, rbp
	adcx	r9, r15
	adox	r10, r14
	adcx	r10, rax
	adox	r11, rax
	mov	rbp, 0xffffffff00000001
	mulx	r14, r15, rbp
	adcx	r11, r15
	adox	r12, r14
	adcx	r12, rax
	adox	r13, rax
	adcx	r13, rax
	xor	r8, r8
	# t += a * b[1]: CF chain low halves, OF chain high halves
	mov	rdx, QWORD PTR [rcx+8]
	xor	eax, eax
	mulx	r14, r15, QWORD PTR [rsi]
	adcx	r9, r15
	adox	r10, r14
	mulx	r14, r15, QWORD PTR [rsi+8]
	adcx	r10, r15
	adox	r11, r14
	mulx	r14, r15, QWORD PTR [rsi+16]
	adcx	r11, r15
	adox	r12, r14
	mulx	r14, r15, QWORD PTR [rsi+24]
	adcx	r12, r15
	adox	r13, r14
	adcx	r13, rax
	adox	r8, rax
	adcx	r8, rax
	# reduction: m = t0, mulx by p's words on both chains
	mov	rdx, r9
	xor	eax, eax
	mov	rbp, 0xffffffffffffffff
	mulx	r14, r15, rbp
	adcx	r9, r15
	adox	r10, r14
	mov	rbp, 0x00000000ffffffff
	mulx	r14, r15, rbp
	adcx	r10, r15
	adox	r11, r14
	adcx	r11, rax
	adox	r12, rax
	mov	rbp, 0xffffffff00000001
	mulx	r14, r15, rbp
	adcx	r12, r15
	adox	r13, r14
	adcx	r13, rax
	adox	r8, rax
	adcx	r8, rax
	xor	r9, r9
	# t += a * b[2]: CF chain low halves, OF chain high halves
	mov	rdx, QWORD PTR [rcx+16]
	xor	eax, eax
	mulx	r14, r15, QWORD PTR [rsi]
	adcx	r10, r15
	adox	r11, r14
	mulx	r14, r15, QWORD PTR [rsi+8]
	adcx	r11, r15
	adox	r12, r14
	mulx	r14, r15, QWORD PTR [rsi+16]
	adcx	r12, r15
	adox	r13, r14
	mulx	r14, r15, QWORD PTR [rsi+24]
	adcx	r13, r15
	adox	r8, r14
	adcx	r8, rax
	adox	r9, rax
	adcx	r9, rax
	# reduction: m = t0, mulx by p's words on both chains
	mov	rdx, r10
	xor	eax, eax
	mov	rbp, 0xffffffffffffffff
	mulx	r14, r15, rbp
	adcx	r10, r15
	adox	r11, r14
	mov	rbp, 0x00000000ffffffff
	mulx	r14, r15, rbp
	adcx	r11, r15
	adox	r12, r14
	adcx	r12, rax
	adox	r13, rax
	mov	rbp, 0xffffffff00000001
	mulx	r14, r15, rbp
	adcx	r13, r15
	adox	r8, r14
	adcx	r8, rax
	adox	r9, rax
	adcx	r9, rax
	xor	r10, r10
	# t += a * b[3]: CF chain low halves, OF chain high halves
	mov	rdx, QWORD PTR [rcx+24]
	xor	eax, eax
	mulx	r14, r15, QWORD PTR [rsi]
	adcx	r11, r15
	adox	r12, r14
	mulx	r14, r15, QWORD PTR [rsi+8]
	adcx	r12, r15
	adox	r13, r14
	mulx	r14, r15, QWORD PTR [rsi+16]
	adcx	r13, r15
	adox	r8, r14
	mulx	r14, r15, QWORD PTR [rsi+24]
	adcx	r8, r15
	adox	r9, r14
	adcx	r9, rax
	adox	r10, rax
	adcx	r10, rax
	# reduction: m = t0, mulx by p's words on both chains
	mov	rdx, r11
	xor	eax, eax
	mov	rbp, 0xffffffffffffffff
	mulx	r14, r15, rbp
	adcx	r11, r15
	adox	r12, r14
	mov	rbp, 0x00000000ffffffff
	mulx	r14, r15, rbp
	adcx	r12, r15
	adox	r13, r14
	adcx	r13, rax
	adox	r8, rax
	mov	rbp, 0xffffffff00000001
	mulx	r14, r15, rbp
	adcx	r8, r15
	adox	r9, r14
	adcx	r9, rax
	adox	r10, rax
	adcx	r10, rax
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
	.size	p256_mul_adx, .-p256_mul_adx
	.section	.note.GNU-stack,"",@progbits
