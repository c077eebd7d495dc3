/* expect error: a __shared__ variable cannot have an initializer in CUDA: declare it, then assign it in the kernel */
__global__ void k(int *o)
{
    __shared__ int count = 0; /* here */
    o[0] = count;
}
int main(void) { return 0; }
