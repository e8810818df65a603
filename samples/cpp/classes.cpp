// Classes: virtual dispatch through a vtable, multiple inheritance (thunks), operator
// overloading, references and a pure interface.
extern "C" int printf(const char *, ...);

struct Shape {
    virtual ~Shape() {}
    virtual double area() const = 0;
    virtual const char *name() const { return "shape"; }
};

struct Named {
    virtual const char *label() const { return "named"; }
    virtual ~Named() {}
};

struct Rect : Shape, Named {
    double w, h;
    Rect(double w_, double h_) : w(w_), h(h_) {}
    double area() const override { return w * h; }
    const char *name() const override { return "rect"; }
    const char *label() const override { return "a rectangle"; }
};

struct Circle final : Shape {
    double r;
    explicit Circle(double r_) : r(r_) {}
    double area() const override { return 3.14159 * r * r; }
};

struct Vec2 {
    float x, y;
    Vec2 operator+(const Vec2 &o) const { return {x + o.x, y + o.y}; }
    Vec2 &operator*=(float s) {
        x *= s;
        y *= s;
        return *this;
    }
    bool operator==(const Vec2 &o) const { return x == o.x && y == o.y; }
};

double describe(const Shape &s) {
    printf("%s: %.2f\n", s.name(), s.area());
    return s.area();
}

int shapes(int n) {
    Rect r(2.0, n);
    Circle c(n * 0.5);
    const Named &named = r;
    printf("%s\n", named.label());
    Vec2 v{1.0f, 2.0f};
    v = v + Vec2{0.5f, 0.5f};
    v *= 2.0f;
    printf("v=(%f, %f) %d\n", v.x, v.y, v == Vec2{3.0f, 5.0f});
    return static_cast<int>(describe(r) + describe(c));
}
