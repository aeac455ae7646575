// Unzipping .pt2 archives (libzip) and finding the ExportedProgram in them.
#include <memory>

#include <zip.h>

#include "ir/diagnostic.h"
#include "ir/limits.h"
#include "src/import/pt2.h"

namespace torchtv {

namespace {

// Note [pt2 layouts]
// torch 2.2-2.5 wrote entries at the archive root (serialized_exported_program.json,
// serialized_constants.pt, ...; constants pickled). torch >= 2.6 writes
// <name>/models/model.json with raw constants under <name>/data/constants/
// described by model_constants_config.json. LibTorch's PyTorchStreamReader
// only reads the second (it requires every entry to be inside one folder), so
// both go through libzip here.
class Zip {
public:
  explicit Zip(const std::string &path) : path_(path) {
    int err = 0;
    za_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!za_) {
      zip_error_t ze;
      zip_error_init_with_code(&ze, err);
      std::string why = zip_error_strerror(&ze);
      zip_error_fini(&ze);
      throw InputError(SourcePos{path}, "not a readable .pt2 archive (zip: " + why + ")");
    }
    zip_int64_t n = zip_get_num_entries(za_, 0);
    if (n < 0 || static_cast<uint64_t>(n) > limits().maxArchiveEntries) {
      zip_discard(za_);
      throw InputError(SourcePos{path}, "holds " + std::to_string(n) + " entries; " +
                                            limitMessage("max_archive_entries", limits().maxArchiveEntries));
    }
  }
  ~Zip() { zip_discard(za_); }
  Zip(const Zip &) = delete;
  Zip &operator=(const Zip &) = delete;

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    zip_int64_t n = zip_get_num_entries(za_, 0);
    for (zip_int64_t i = 0; i < n; ++i)
      if (const char *name = zip_get_name(za_, i, 0)) out.push_back(name);
    return out;
  }

  bool has(const std::string &name) const { return zip_name_locate(za_, name.c_str(), 0) >= 0; }

  std::string read(const std::string &name) const {
    zip_stat_t st;
    zip_file_t *f = nullptr;
    if (zip_stat(za_, name.c_str(), 0, &st) != 0 || !(f = zip_fopen(za_, name.c_str(), 0)))
      throw InputError(SourcePos{path_}, "cannot open entry '" + name + "': " + zip_strerror(za_));
    // Note [Input limits]: the size is the uncompressed one from the directory,
    // checked before allocating (a zip bomb); libzip stops reading at it and
    // ZIP_CHECKCONS plus the CRC check catch an entry that lies about it.
    if (!(st.valid & ZIP_STAT_SIZE) || st.size > limits().maxFileBytes) {
      zip_fclose(f);
      throw InputError(SourcePos{path_}, "entry '" + name + "' of " + std::to_string(st.size) + " bytes " +
                                             limitMessage("max_file_bytes", limits().maxFileBytes));
    }
    std::string data(st.size, '\0');
    zip_int64_t got = zip_fread(f, data.data(), st.size);
    bool ok = got == static_cast<zip_int64_t>(st.size);
    std::string why = ok ? "" : zip_file_strerror(f);
    zip_fclose(f);
    if (!ok) throw InputError(SourcePos{path_}, "entry '" + name + "' is damaged (" + why + ")");
    return data;
  }

private:
  std::string path_;
  zip_t *za_ = nullptr;
};

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::unique_ptr<Module> importPt2(const std::string &path, const std::vector<TensorType> *inputs) {
  auto zip = std::make_shared<Zip>(path);
  std::string modelEntry, prefix;
  for (const std::string &name : zip->names()) {
    // <folder>/models/model.json (newer) or [<folder>/]serialized_exported_program.json (older).
    size_t slash = name.find('/');
    std::string rest = slash == std::string::npos ? name : name.substr(slash + 1);
    std::string folder = slash == std::string::npos ? "" : name.substr(0, slash + 1);
    if (rest == "models/model.json" || name == "serialized_exported_program.json" ||
        rest == "serialized_exported_program.json") {
      if (!modelEntry.empty())
        throw InputError(SourcePos{path}, "holds several exported programs ('" + modelEntry + "', '" + name + "')");
      modelEntry = name;
      prefix = folder;
    }
  }
  if (modelEntry.empty()) {
    bool otherModels = false;
    for (const std::string &name : zip->names()) otherModels |= name.find("/models/") != std::string::npos;
    throw InputError(SourcePos{path}, otherModels
                                          ? "holds models other than models/model.json; torchtv reads only that one"
                                          : "is a zip archive but not a torch.export archive (no models/model.json "
                                            "or serialized_exported_program.json)");
  }
  Pt2Archive archive;
  archive.path = path;
  archive.modelJson = zip->read(modelEntry);
  bool newer = endsWith(modelEntry, "models/model.json");
  std::string config = prefix + "data/constants/model_constants_config.json";
  if (newer && zip->has(config)) archive.constantsConfigJson = zip->read(config);
  if (newer && zip->has(prefix + "byteorder") && zip->read(prefix + "byteorder") != "little")
    throw InputError(SourcePos{path}, "stores tensors big-endian; only little-endian archives are supported");
  archive.readConstant = [zip, prefix, newer, path](const std::string &name) -> std::string {
    if (!newer)
      throw InputError(SourcePos{path}, "lifted constant '" + name +
                                            "' is pickled in this older layout (serialized_constants.pt), which "
                                            "torchtv cannot read");
    return zip->read(prefix + "data/constants/" + name);
  };
  return importExportedProgram(archive, inputs);
}

}  // namespace torchtv
