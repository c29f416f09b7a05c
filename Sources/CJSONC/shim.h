#ifndef TRAITBRIDGE_CJSONC_SHIM_H
#define TRAITBRIDGE_CJSONC_SHIM_H

// json-c, seen from Swift. Only TraitBridgeJSON imports this module.
// json-c's object iteration is a macro (json_object_object_foreach) that Swift cannot call;
// TraitBridgeJSON uses the public iterator API from json_object_iterator.h instead, so no
// function shim is needed here. Keep every future shim prefixed `cjsonc_` and say why it exists.
#include <json-c/json.h>
#include <json-c/json_object_iterator.h>
#include <json-c/json_tokener.h>

#endif
