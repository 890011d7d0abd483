// Package configobservation maps cluster configuration to the SecondaryScheduler's
// spec.observedConfig, in the layout package render reads:
//
//	observedConfig:
//	  servingInfo:                 # apiservers.config.openshift.io/cluster spec.tlsSecurityProfile
//	    minTLSVersion: VersionTLS12    # -> kube-scheduler --tls-min-version
//	    cipherSuites: [...]            # IANA names -> --tls-cipher-suites
//	  kubeSchedulerConfiguration:  # schedulers.config.openshift.io/cluster spec.profile
//	    {a sparse kubescheduler.config.k8s.io/v1 layer, see SchedulerProfileLayer}
//
// servingInfo is library-go's own layout, so the TLS observer is library-go's
// apiserver.ObserveTLSSecurityProfile unchanged (it converts OpenSSL cipher names
// to the IANA names kube-scheduler expects).
//
// The observers are library-go ObserveConfigFuncs over Listers: the config
// observer controller passes informer-backed listers, the render command passes
// in-memory indexers filled from the files it reads (ObserveObjects).
package configobservation
