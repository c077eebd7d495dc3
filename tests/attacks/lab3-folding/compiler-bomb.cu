/* Keeps the compiler busy for many minutes with constant evaluation. */
// expect: build-fails
constexpr long long attack_spin()
{
    long long x = 0;
    for (int i = 0; i < 200000; i++)
        for (int j = 0; j < 200000; j++)
            x += (i ^ j) & 1;
    return x;
}
static_assert(attack_spin() > 0, "spun");
