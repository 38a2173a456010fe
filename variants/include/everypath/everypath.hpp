// Everything generated code needs: include this one header.
#pragma once

#include "array.hpp"
#include "scalar.hpp"
#include "map.hpp"
#include "index.hpp"
#include "format.hpp"
#include "str.hpp"
#include "builtins.hpp"
#include "ops/creation.hpp"
#include "ops/reduce.hpp"
#include "ops/scan.hpp"
#include "ops/linalg.hpp"
#include "ops/shape.hpp"
#include "fused_reduce.hpp"
#include "dispatch.hpp"
#include "telemetry.hpp"
#include "entry.hpp"
