// No printf at all: lowering must leave this module byte for byte as it is.
template <typename T>
struct Stack {
    T data[16];
    int top = 0;
    void push(T v) { data[top++ & 15] = v; }
    T pop() { return data[--top & 15]; }
};

int rpn(const char *program) {
    Stack<int> s;
    for (const char *p = program; *p; ++p) {
        if (*p >= '0' && *p <= '9') {
            s.push(*p - '0');
        } else {
            int b = s.pop();
            int a = s.pop();
            s.push(*p == '+' ? a + b : *p == '*' ? a * b : a - b);
        }
    }
    return s.pop();
}
