#ifndef TRAITBRIDGE_CMOSQUITTO_SHIM_H
#define TRAITBRIDGE_CMOSQUITTO_SHIM_H

// libmosquitto, seen from Swift. Only TraitBridgeMQTT imports this module.
#include <mosquitto.h>
#include <mqtt_protocol.h>

#endif
