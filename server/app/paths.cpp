#include "app/paths.hpp"

#include <filesystem>
#include <system_error>

namespace herd::app {
namespace fs = std::filesystem;

namespace {

// The running binary's directory (Linux: /proc/self/exe); empty when it cannot be read.
fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

}  // namespace

DataPaths default_data_paths() {
  const fs::path bin = executable_dir();
  // HERD_DATA_FROM_BIN is relative (CMake derives it from the install layout: ../share/herd).
  const fs::path installed = (bin / HERD_DATA_FROM_BIN).lexically_normal();
  const fs::path build_tree = bin / "share" / "herd";
  std::error_code ec;
  const fs::path& data =
      !fs::is_directory(installed, ec) && fs::is_directory(build_tree, ec) ? build_tree : installed;
  return {(data / "web").string(), (data / "scenarios").string()};
}

}  // namespace herd::app
