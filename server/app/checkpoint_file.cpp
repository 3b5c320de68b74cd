#include "app/checkpoint_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace herd::app {

namespace {

// `data` to `path`, atomically: its owner's only (0600). The temporary file is made afresh
// (O_EXCL) and never through a link, so a link planted at its name cannot make the server
// overwrite another file; a leftover (or a planted link) is removed first, which removes the
// link, not what it names.
std::string write_atomically(const std::string& path, const std::string& data) {
  const std::string temp = path + ".tmp";
  ::unlink(temp.c_str());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot write " + temp + ": " + std::strerror(errno);
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return "cannot write " + temp + ": " + why;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    return "cannot flush " + temp + ": " + std::strerror(errno);
  if (std::rename(temp.c_str(), path.c_str()) != 0)
    return "cannot rename " + temp + " to " + path + ": " + std::strerror(errno);
  return {};
}

}  // namespace

std::string write_checkpoint(const std::string& path, const sim::World& world,
                             const std::string& scenario) {
  if (std::string why = write_atomically(path, world.save_checkpoint()); !why.empty()) return why;
  return write_atomically(path + ".scenario", scenario + "\n");
}

std::optional<std::string> read_checkpoint_scenario(const std::string& path) {
  std::ifstream in(path + ".scenario", std::ios::binary);
  std::string scenario;
  if (!in || !std::getline(in, scenario) || scenario.empty()) return std::nullopt;
  return scenario;
}

std::variant<sim::World, std::string> read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot read checkpoint " + path;
  std::ostringstream data;
  data << in.rdbuf();
  auto world = sim::World::load_checkpoint(data.str());
  if (auto* why = std::get_if<std::string>(&world))
    return "checkpoint " + path + " refused: " + *why;
  return world;
}

}  // namespace herd::app
