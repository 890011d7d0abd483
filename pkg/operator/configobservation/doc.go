// Package configobservation runs the operator's config observers: they map
// cluster configuration to the SecondaryScheduler's spec.observedConfig, in
// the layout package render reads (see package clusterconfig).
//
// servingInfo is library-go's own layout, so the TLS observer is library-go's
// apiserver.ObserveTLSSecurityProfile unchanged (it converts OpenSSL cipher names
// to the IANA names kube-scheduler expects).
//
// The observers are library-go ObserveConfigFuncs over Listers, which the
// config observer controller fills from informers. The render command observes
// the objects it reads without them (clusterconfig.ObserveObjects); this
// package's tests hold the two to the same answers.
package configobservation
