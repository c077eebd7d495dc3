/* switch_x86_64.S: the fiber context switch of the cpu backend.
 *
 *   void cudaemu_switch(void **save_sp, void *next_sp);
 *
 * Pushes the callee-saved registers on the current stack, stores the stack
 * pointer in *save_sp, loads next_sp and pops the same registers back: a
 * dozen instructions, and no system call (glibc's swapcontext makes one to
 * save the signal mask).  The SSE and x87 control words (rounding, flush to
 * zero) are not switched: every fiber runs on the launching thread, in the
 * host's modes, and a kernel cannot change them (CUDA device code has no
 * fesetround); saving and loading them cost about a nanosecond a switch. */
    .text
    .globl cudaemu_switch
    .hidden cudaemu_switch
    .type cudaemu_switch, @function
cudaemu_switch:
    .cfi_startproc
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .cfi_endproc
    .size cudaemu_switch, .-cudaemu_switch
    .section .note.GNU-stack,"",@progbits
