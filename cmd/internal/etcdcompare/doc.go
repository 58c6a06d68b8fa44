// Package etcdcompare runs the same etcdctl sessions against a real etcd
// v3.6.16 cluster and against raftsim's console, and compares what they
// print.
//
// A session (testdata/sessions/NAME.txt) is a list of etcdctl command lines
// for a fresh three-member cluster m1, m2, m3, plus a few directives
// (Parse). Each side runs it with --endpoints set to the three members'
// client addresses; the output of each command is normalised (Normalize:
// durations, database sizes, hashes and IDs made at run time) and written
// as a transcript. testdata/expected/NAME.txt holds the real etcd's
// transcript. TestSimMatchesRealEtcd checks raftsim's against it on every
// `go test`; TestRealEtcd (run by `make etcd-compare`, which builds etcd
// from the Go module proxy) checks that the real etcd still prints it, and
// with -update writes it.
//
// The simulated cluster is configured with the real one's peer URLs,
// client URLs and cluster token, so member and cluster IDs come out the
// same on both sides and are compared as they are.
package etcdcompare
