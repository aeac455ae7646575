#include "ir/files.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/limits.h"

namespace torchtv {

// Note [Input limits]: read in chunks and stop past max_file_bytes, so that a
// FIFO, a /proc file or a file that grows while read cannot exhaust memory.
std::string readFile(const std::string &path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) throw InputError(SourcePos{path, 0, 0}, "cannot read file: is a directory");
  // A FIFO would block the open forever, a device (/dev/zero) never ends.
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(SourcePos{path, 0, 0}, "cannot read file: not a regular file (a FIFO, socket or device)");
  // stdio rather than ifstream: a failed read() (EIO) must be told apart from the end of the file.
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw InputError(SourcePos{path, 0, 0}, std::string("cannot open file: ") + std::strerror(errno));
  std::string text;
  char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, f.get())) > 0) {
    text.append(chunk, got);
    checkFileSize(text.size(), SourcePos{path, 0, 0});
  }
  if (std::ferror(f.get())) throw InputError(SourcePos{path, 0, 0}, std::string("cannot read file: ") + std::strerror(errno));
  return text;
}

void loadDirectory(const std::string &dir, std::string_view extension, const std::string &what,
                   const std::function<void(const std::string &path, const std::string &text)> &load) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(SourcePos{dir}, what + " does not exist");
  std::vector<std::string> files;
  for (const auto &e : fs::directory_iterator(dir, ec))
    if (e.path().extension().string() == extension) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const std::string &f : files) load(f, readFile(f));
}

}  // namespace torchtv
