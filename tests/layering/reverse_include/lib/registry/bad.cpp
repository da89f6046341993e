// Fixture for the layering check: the registry must not know the host.
#include "weft/host/host.hpp"
