// Package emulator runs a kit's lifecycle hooks hermetically, under the
// composition's own network policy, on a BuildKit daemon: what
// `kitsmith test` does.
//
// Run composes the kits (the workload's image, then the mixins' layers in
// composition order, as review.Resolve orders them), starts one BuildKit
// gateway container with no network but loopback, and runs every install
// hook and then every startup hook, each as its declared user (root for
// install and the agent, uid 1000, for startup by default; the image's
// USER with sbx@1), with exactly its declared env: names plus the
// baseline (PATH, HOME, HOSTNAME). Values come from the composed image,
// the args' exports, the emulator's proxy variables and, for proxy-managed
// credentials, sentinels; never from the caller's environment.
//
// The container's only way out is a unix socket that BuildKit forwards
// over the client session to an enforcing proxy in this package. Inside
// the container, kitsmith's own binary (run as the hidden `kitsmith
// __shim`) answers name resolution with fake loopback addresses, listens
// as the forward proxy HTTP(S)_PROXY announces, and captures direct
// connections to those addresses on port 80, 443 and the ports the policy
// names (the transparent path); both paths tunnel to the proxy, which
// judges each connection against the running hook's phase (install hooks
// under the install lists, startup hooks under the runtime lists; deny
// wins) and records it with the entry to add when it refuses.
//
// A green run means "consistent with the specification as kitsmith reads
// it", not "works in sbx"; Report.NotEmulated lists what is not
// reproduced.
package emulator
