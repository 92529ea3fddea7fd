/* faultapi.h - where cluster-wide faults live in the API server: the
 * GPUFault objects (desired faults) and the GPUFaultReport objects (one per
 * node, what its agent did), both cluster-scoped in group mokka.io
 * (ci/deploy/gpufault-crd.yaml). */
#ifndef MOKKA_FAULTAPI_H
#define MOKKA_FAULTAPI_H

#define MK_GF_GROUP "mokka.io"
#define MK_GF_VERSION "v1alpha1"
#define MK_GF_API_VERSION "mokka.io/v1alpha1"
#define MK_GF_PATH "/apis/" MK_GF_API_VERSION "/gpufaults"
#define MK_GFR_PATH "/apis/" MK_GF_API_VERSION "/gpufaultreports"
/* How to install both resources, for messages when they are missing. */
#define MK_GF_CRD_HINT "kubectl apply -f ci/deploy/gpufault-crd.yaml"

#endif
