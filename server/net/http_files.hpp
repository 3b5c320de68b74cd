// herd::net static files: maps a request target to a file under the web root, safely.
// No Beast here: plain strings in and out, so it is tested directly and compiles fast.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace herd::net {

struct FileResponse {
  int status = 404;  // 200, 400, 403, 404
  std::string content_type;
  std::string body;  // a short message when not 200
  std::string path;  // for 200: the file to send (the caller streams it)
};

// Percent-decodes a URL path; nullopt on a malformed escape or a decoded NUL.
std::optional<std::string> percent_decode(std::string_view path);

// The content type for a file name's extension (text/html, text/javascript, ...).
std::string_view content_type_for(std::string_view filename);

// Serves `target` (e.g. "/", "/main.js?x=1") from `root`: "/" and directories map to their
// index.html, "/monitor" to monitor.html (the operator's page), and "/js/src/..." to the
// JavaScript client package's modules, from `js/src` beside `root` (other paths under "/js/" are
// 404); ".." segments, backslashes, and anything resolving outside the directory served are
// refused (403); there are no directory listings. The file is not read here: a 200 names it.
FileResponse serve_file(std::string_view target, const std::string& root);

}  // namespace herd::net
