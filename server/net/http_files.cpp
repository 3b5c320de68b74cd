#include "net/http_files.hpp"

#include <algorithm>
#include <filesystem>

namespace herd::net {
namespace {

namespace fs = std::filesystem;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

FileResponse refuse(int status, std::string message) {
  return {status, "text/plain; charset=utf-8", std::move(message)};
}

// The JavaScript client package's modules, served at kPackagePath from the src/ of the directory
// `js` beside the web root: the viewer imports them as ../js/src/..., which names that directory
// on disk (clients/js beside clients/web in the sources, share/herd/js beside share/herd/web
// installed) and, from the viewer at the site's root, this path. Nothing else of the package (its
// tests, examples, node_modules) is served.
constexpr std::string_view kPackagePath = "/js/src/";

// Empty when there is no such place (no web root).
fs::path package_sources(const std::string& root) {
  std::error_code ec;
  fs::path web = fs::absolute(fs::path(root), ec).lexically_normal();
  if (ec || root.empty()) return {};
  if (!web.has_filename()) web = web.parent_path();  // "web/" names "web"
  return web.parent_path() / "js" / "src";
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out += path[i];
      continue;
    }
    if (i + 2 >= path.size()) return std::nullopt;  // '%' needs two hex digits after it
    const int hi = hex_value(path[i + 1]);
    const int lo = hex_value(path[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0') return std::nullopt;
    out += c;
    i += 2;
  }
  return out;
}

std::string_view content_type_for(std::string_view filename) {
  const auto dot = filename.rfind('.');
  const std::string_view ext = dot == std::string_view::npos ? "" : filename.substr(dot);
  if (ext == ".html" || ext == ".htm") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".txt" || ext == ".md") return "text/plain; charset=utf-8";
  if (ext == ".wasm") return "application/wasm";
  return "application/octet-stream";
}

FileResponse serve_file(std::string_view target, const std::string& root) {
  const std::string_view path = target.substr(0, target.find_first_of("?#"));
  if (path.empty() || path.front() != '/') return refuse(400, "bad request target\n");
  const auto decoded = percent_decode(path);
  if (!decoded) return refuse(400, "bad percent-encoding in path\n");
  // Refuse any ".." segment and any backslash outright, before touching the file system; and
  // hidden files and directories (".git", ".env"): the viewer has none, and a web root that is a
  // checkout would serve its repository otherwise. They read as absent, and so does a traversal
  // (404, as for any file not served: the answer tells nothing of what lies outside the root).
  std::string_view rest(*decoded);
  // The operator's page has a name of its own (the token rides in its fragment, as the viewer's).
  if (rest == "/monitor") rest = "/monitor.html";
  if (rest.find('\\') != std::string_view::npos) return refuse(404, "not found\n");
  for (std::size_t start = 0; start <= rest.size();) {
    const std::size_t end = std::min(rest.find('/', start), rest.size());
    const std::string_view segment = rest.substr(start, end - start);
    if (segment == "..") return refuse(404, "not found\n");
    if (!segment.empty() && segment.front() == '.') return refuse(404, "not found\n");
    start = end + 1;
  }
  fs::path served = root;
  if (rest.starts_with("/js/")) {
    if (!rest.starts_with(kPackagePath)) return refuse(404, "not found\n");
    served = package_sources(root);
    if (served.empty()) return refuse(404, "not found\n");
    rest.remove_prefix(kPackagePath.size() - 1);  // keeps its leading '/'
  }
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(served, ec);
  if (ec) return refuse(404, "not found\n");
  fs::path file = base / fs::path(std::string(rest.substr(1)));
  if (fs::is_directory(file, ec)) file /= "index.html";
  // Symlinks could still point outside: the canonical path must stay under the root.
  const fs::path real = fs::weakly_canonical(file, ec);
  if (ec) return refuse(404, "not found\n");
  const auto [root_end, _] = std::mismatch(base.begin(), base.end(), real.begin(), real.end());
  if (root_end != base.end()) return refuse(404, "not found\n");
  if (!fs::is_regular_file(real, ec)) return refuse(404, "not found\n");
  return {200, std::string(content_type_for(real.filename().string())), {}, real.string()};
}

}  // namespace herd::net
