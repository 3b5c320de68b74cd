// herd-catalogue: writes the command catalogue that protocol/command_table.cpp declares, as
// clients/web/commands.json and its copies in the JS and Python packages hold it.
//   herd-catalogue                 the catalogue (JSON) on standard output
//   herd-catalogue --js            the JS package's module (clients/js/src/catalogue.js)
//   herd-catalogue --write ROOT    rewrites the three committed files under ROOT
//   herd-catalogue --check ROOT    exits 1, naming each, when a committed file differs
//   herd-catalogue --out DIR       writes the three files into DIR (the build's copy)
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

#include "protocol/command_table.hpp"

namespace {

struct Output {
  const char* path;  // under the repository's root
  bool js;
};
constexpr Output kOutputs[] = {{"clients/web/commands.json", false},
                               {"clients/js/src/catalogue.js", true},
                               {"clients/python/herd/catalogue.json", false}};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

bool write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

std::string file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

int main(int argc, char** argv) {
  using herd::protocol::catalogue_text;
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (argc == 1 || (argc == 2 && mode == "--js")) {
    std::cout << catalogue_text(mode == "--js");
    return 0;
  }
  if (argc != 3 || (mode != "--write" && mode != "--check" && mode != "--out")) {
    std::cerr << "usage: herd-catalogue [--js | --write ROOT | --check ROOT | --out DIR]\n";
    return 2;
  }
  const std::string dir = argv[2];
  int status = 0;
  for (const Output& o : kOutputs) {
    const std::string path = dir + "/" + (mode == "--out" ? file_name(o.path) : o.path);
    const std::string text = catalogue_text(o.js);
    if (mode == "--check") {
      if (read(path) != text) {
        std::cerr << "herd-catalogue: " << o.path
                  << " is not what protocol/command_table.cpp declares: run scripts/catalogue\n";
        status = 1;
      }
    } else if (!write(path, text)) {
      std::cerr << "herd-catalogue: cannot write " << path << "\n";
      status = 1;
    }
  }
  return status;
}
