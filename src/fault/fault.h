/* fault.h - cluster-wide GPU faults: the GPUFault custom resource
 * (ci/deploy/gpufault-crd.yaml) as the agents on the nodes and the CLI
 * see it. The face of src/fault/: gpufault.h is the data model, faultargs.h
 * `mokka inject --cluster`, fabricargs.h the values of inject's --fabric-*
 * options (local and cluster), faultsuite.h the suites' injects with nodes:;
 * reconcile.h, agentreport.h, faultlist.h and faultapi.h are what a node's
 * agent does with the faults, which `mokka fleet` does for each virtual node. */
#ifndef MOKKA_FAULT_H
#define MOKKA_FAULT_H

#include "agent.h"
#include "agentreport.h"
#include "faultapi.h"
#include "faultlist.h"
#include "reconcile.h"
#include "gpufault.h"
#include "fabricargs.h"
#include "faultargs.h"
#include "faultsuite.h"

#endif
