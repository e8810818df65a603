// Templates: class and function templates, specialization, variadic templates, constexpr,
// lambdas and a static local (a guard variable on the host).
extern "C" int printf(const char *, ...);

template <typename T, int N>
struct Array {
    T items[N];
    constexpr int size() const { return N; }
    T &operator[](int i) { return items[i]; }
    template <typename F>
    void each(F f) {
        for (int i = 0; i < N; ++i) {
            f(items[i], i);
        }
    }
};

template <typename T>
T largest(T a, T b) { return a < b ? b : a; }

template <>
const char *largest<const char *>(const char *a, const char *) { return a; }

template <typename T>
T sum() { return T(); }

template <typename T, typename... Rest>
T sum(T first, Rest... rest) { return first + sum<T>(rest...); }

struct Counter {
    static Counter &instance() {
        static Counter counter;
        return counter;
    }
    int hits = 0;
};

template <typename T>
void show(const char *label, T value);

template <>
void show<int>(const char *label, int value) { printf("%s=%d\n", label, value); }

template <>
void show<double>(const char *label, double value) { printf("%s=%f\n", label, value); }

int run(int seed) {
    Array<int, 4> a{{seed, seed + 1, seed * 2, 7}};
    int total = 0;
    a.each([&total](int v, int i) { total += v * i; });
    Array<double, 3> d{{0.5, 1.5, 2.5}};
    double dsum = 0;
    d.each([&](double v, int) { dsum += v; });
    show("total", total);
    show("dsum", dsum);
    show("largest", largest(a[0], a[3]));
    show("sum", sum(1, 2, 3, seed));
    Counter::instance().hits += a.size();
    return Counter::instance().hits + (largest("x", "y")[0] == 'x');
}
