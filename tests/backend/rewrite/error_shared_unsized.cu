/* expect error: __shared__ values needs a size known at compile time; use extern __shared__ for a size chosen at launch */
__global__ void k(int *o)
{
    __shared__ int values[]; /* here */
    o[0] = values[0];
}
int main(void) { return 0; }
