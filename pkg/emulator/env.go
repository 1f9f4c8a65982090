package emulator

import (
	"bufio"
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// ProxyURL is the forward proxy the emulator announces in HTTP(S)_PROXY:
// the address sbx announces, which the container's /etc/hosts maps to
// the shim on loopback.
const ProxyURL = "http://gateway.docker.internal:3128"

// NoProxy is the NO_PROXY value sbx sets in a sandbox.
const NoProxy = "localhost,127.0.0.1,::1,gateway.docker.internal"

// baseline are the names every hook gets besides its declared env: list
// (lifecycle@1 hook-env-restricted). The shell adds PWD, OLDPWD, SHLVL
// and _ itself.
var baseline = []string{"PATH", "HOME", "HOSTNAME"}

// Hostname is the container's host name.
const Hostname = "kitsmith-test"

// values are the values a hook's declared names are taken from, as the
// final container environment holds them: the image's ENV, then the
// variables the kits' args export, then the emulator's proxy variables;
// then the credentials of the phase (a sentinel for a proxy-managed key,
// the test secret for one that is not).
type values struct {
	image   map[string]string
	exports map[string]string
	// creds are per phase.
	creds map[string]map[string]string
	// sentinels are the proxy-managed credentials' sentinels, by service.
	sentinels map[string]string
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// SentinelPrefix starts the value a proxy-managed credential's variable
// holds in the sandbox instead of the secret.
const SentinelPrefix = "kitsmith-test-sentinel-"

// credentialValues reads the kits' credential@1 entries: for each phase,
// the variable each API key names and the value it holds there.
func credentialValues(d *spec.Descriptor, secrets map[string]string) (map[string]map[string]string, map[string]string, error) {
	creds := map[string]map[string]string{PhaseInstall: {}, PhaseRuntime: {}}
	sentinels := map[string]string{}
	for _, c := range d.Capabilities {
		if c.Type != spec.TypeCredential {
			continue
		}
		var cr spec.Credential
		if err := spec.DecodeConfig(c.Config, &cr); err != nil {
			return nil, nil, err
		}
		if cr.APIKey == nil || cr.APIKey.Name == "" {
			continue
		}
		v := secrets[cr.Service]
		if cr.APIKey.ProxyManaged == nil || *cr.APIKey.ProxyManaged {
			v = SentinelPrefix + cr.Service
			sentinels[cr.Service] = v
		}
		phases := []string(cr.Phase)
		if len(phases) == 0 {
			phases = []string{PhaseRuntime}
		}
		for _, ph := range phases {
			if m, ok := creds[ph]; ok {
				m[cr.APIKey.Name] = v
			}
		}
	}
	return creds, sentinels, nil
}

// hookEnv is the environment of one hook: exactly its declared names and
// the baseline, each with the value the container holds for it (a name
// with no value is left out, as an unset variable).
func (v *values) hookEnv(phase string, declared []string, home string) []string {
	names := slices.Clone(baseline)
	for _, n := range declared {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	proxyVars := map[string]string{
		"HTTP_PROXY": ProxyURL, "HTTPS_PROXY": ProxyURL, "http_proxy": ProxyURL, "https_proxy": ProxyURL,
		"NO_PROXY": NoProxy, "no_proxy": NoProxy,
	}
	var env []string
	for _, n := range names {
		val, ok := "", false
		switch n {
		case "HOME":
			val, ok = home, true
		case "HOSTNAME":
			val, ok = Hostname, true
		default:
			for _, m := range []map[string]string{v.creds[phase], proxyVars, v.exports, v.image} {
				if x, found := m[n]; found {
					val, ok = x, true
					break
				}
			}
			if n == "PATH" && !ok {
				val, ok = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", true
			}
		}
		if ok {
			env = append(env, n+"="+val)
		}
	}
	sort.Strings(env)
	return env
}

// account is a user of the image's /etc/passwd.
type account struct {
	name     string
	uid, gid int
	home     string
}

// accounts parses an /etc/passwd.
func accounts(passwd []byte) []account {
	var out []account
	sc := bufio.NewScanner(bytes.NewReader(passwd))
	for sc.Scan() {
		f := strings.Split(sc.Text(), ":")
		if len(f) < 7 || strings.HasPrefix(f[0], "#") {
			continue
		}
		uid, err1 := strconv.Atoi(f[2])
		gid, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, account{name: f[0], uid: uid, gid: gid, home: f[5]})
	}
	return out
}

// home is the home directory of user (a name or a uid) in the image, or
// the spec's default for root and the agent.
func home(users []account, user string) string {
	for _, a := range users {
		if a.name == user || strconv.Itoa(a.uid) == user {
			return a.home
		}
	}
	switch user {
	case "0", "root":
		return "/root"
	case "1000", "agent":
		return "/home/agent"
	}
	return "/"
}
