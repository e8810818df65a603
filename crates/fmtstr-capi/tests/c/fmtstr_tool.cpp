// The C++ side of libfmtstr's tests: decode and hash through the C header from C++ (RAII owners,
// std::vector inputs), compared byte for byte with the fmtstr CLI by `cargo xtask capi`.
//   fmtstr_tool_cpp hash STRING
//   fmtstr_tool_cpp decode BUFFER ELF...
#include <fmtstr.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Freer {
    void operator()(void *p) const { fmtstr_free(p); }
};
using Owned = std::unique_ptr<char, Freer>;

std::vector<uint8_t> read_file(const char *path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        std::cerr << "cannot read " << path << '\n';
        std::exit(3);
    }
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

int decode(int count, char **paths) {
    const std::vector<uint8_t> buffer = read_file(paths[0]);
    std::vector<std::vector<uint8_t>> images;
    for (int i = 1; i < count; i++)
        images.push_back(read_file(paths[i]));
    std::vector<const uint8_t *> pointers;
    std::vector<size_t> lengths;
    for (const auto &image : images) {
        pointers.push_back(image.data());
        lengths.push_back(image.size());
    }
    char *text = nullptr, *warnings = nullptr, *error = nullptr;
    size_t text_len = 0;
    const int status = fmtstr_decode(buffer.data(), buffer.size(), pointers.data(),
                                     lengths.data(), images.size(), &text, &text_len, &warnings,
                                     &error);
    Owned text_owner(text), warnings_owner(warnings), error_owner(error);
    if (status != 0) {
        std::cerr << "fmtstr: error: " << (error ? error : "(no message)") << '\n';
        return status;
    }
    std::cout.write(text, static_cast<std::streamsize>(text_len));
    if (warnings)
        std::cerr << warnings;
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    if (argc == 3 && std::strcmp(argv[1], "hash") == 0) {
        const std::string string = argv[2];
        std::cout << fmtstr_hash(reinterpret_cast<const uint8_t *>(string.data()), string.size())
                  << '\n';
        return 0;
    }
    if (argc >= 3 && std::strcmp(argv[1], "decode") == 0)
        return decode(argc - 2, argv + 2);
    std::cerr << "usage: fmtstr_tool_cpp hash STRING | decode BUFFER ELF...\n";
    return 3;
}
