// Where herd-server finds its data (the browser viewer's files and the named scenarios) when no
// flag or variable says: relative to its own binary, so an installed tree can be moved anywhere and
// no absolute source or build path is compiled in.
#pragma once

#include <string>

namespace herd::app {

struct DataPaths {
  std::string web_root;      // the browser viewer's files
  std::string scenario_dir;  // the named scenarios (*.json)
};

// The data directory beside the running binary: <bin>/../share/herd in an installed tree (the
// GNUInstallDirs layout, as `cmake --install` lays it out), or <bin>/share/herd in a build tree
// (which links it to the sources). The first of the two that exists; the installed one when
// neither does, so that an error names where the files were expected.
DataPaths default_data_paths();

}  // namespace herd::app
