/* fault.h - cluster-wide GPU faults: the GPUFault custom resource
 * (ci/deploy/gpufault-crd.yaml) as the agents on the nodes and the CLI
 * see it. The face of src/fault/: gpufault.h is the data model, faultargs.h
 * `mokka inject --cluster`, fabricargs.h the values of inject's --fabric-*
 * options (local and cluster), faultsuite.h the suites' injects with nodes:. */
#ifndef MOKKA_FAULT_H
#define MOKKA_FAULT_H

#include "agent.h"
#include "gpufault.h"
#include "fabricargs.h"
#include "faultargs.h"
#include "faultsuite.h"

#endif
