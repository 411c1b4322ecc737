#include "core/config.h"

namespace ibcore {

Config& config() {
  static Config c;
  return c;
}

}  // namespace ibcore
