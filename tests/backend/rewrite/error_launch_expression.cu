/* expect error: cannot read this kernel launch; the cpu backend reads KERNEL<<<GRID, BLOCK>>>(ARGS), with an optional shared memory size and stream after BLOCK, where KERNEL is the kernel's name, qualified or with template arguments (k, ns::k, k<T, 4>), not an expression such as (k) or a function pointer */
__global__ void k(int *o) { o[0] = 1; }
int main(void)
{
    int *d = 0;
    (k)<<<1, 1>>>(d); /* here */
    return 0;
}
