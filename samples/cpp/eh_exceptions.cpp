// Exceptions: throw and catch by class and by value, rethrow, destructors run while
// unwinding (cleanup landing pads), a function-try-block and noexcept. Host only (NVPTX has
// no exceptions).
extern "C" int printf(const char *, ...);

struct Error {
    int code = 0;
    const char *what = "";
    Error() = default;
    Error(int c, const char *w) : code(c), what(w) {}
    virtual ~Error() {}
    virtual int severity() const { return 1; }
};

struct Fatal : Error {
    int severity() const override { return 9; }
};

struct Guard {
    const char *name;
    explicit Guard(const char *n) : name(n) { printf("enter %s\n", name); }
    ~Guard() { printf("leave %s\n", name); }
};

static int depth = 0;

void fail(int code) {
    Guard g("fail");
    if (code > 2) {
        Fatal f;
        f.code = code;
        f.what = "fatal";
        throw f;
    }
    if (code > 0) {
        throw Error(code, "error");
    }
    throw code;
}

int recover(int code) {
    Guard g("recover");
    try {
        fail(code);
    } catch (const Fatal &f) {
        printf("fatal %d (severity %d)\n", f.code, f.severity());
        return -f.code;
    } catch (const Error &e) {
        printf("error %d: %s\n", e.code, e.what);
        return e.code;
    } catch (int n) {
        ++depth;
        if (depth < 2) {
            throw;
        }
        return n;
    } catch (...) {
        return -100;
    }
    return 0;
}

int outer(int code) try {
    return recover(code);
} catch (int n) {
    printf("rethrown %d\n", n);
    return n - 1;
}

int quiet(int x) noexcept {
    Guard g("quiet");
    return x * 2;
}

int main(int argc, char **) {
    int total = 0;
    for (int i = 0; i < 4; ++i) {
        total += outer(i + argc - 1);
    }
    return total + quiet(argc);
}
