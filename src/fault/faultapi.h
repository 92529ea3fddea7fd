/* faultapi.h - where the GPUFault and GPUFaultReport custom resources
 * (ci/deploy/gpufault-crd.yaml) live in the API server, for the CLI, the
 * suites and the agents. */
#ifndef MOKKA_FAULTAPI_H
#define MOKKA_FAULTAPI_H

#define MK_GF_GROUP "mokka.io"
#define MK_GF_VERSION "v1alpha1"
#define MK_GF_PATH "/apis/mokka.io/v1alpha1/gpufaults"
#define MK_GFR_PATH "/apis/mokka.io/v1alpha1/gpufaultreports"
/* How to install both resources, for messages when they are missing. */
#define MK_GF_CRD_HINT "kubectl apply -f ci/deploy/gpufault-crd.yaml"

#endif
