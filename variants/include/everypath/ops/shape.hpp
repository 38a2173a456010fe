#pragma once
#include "../array.hpp"
