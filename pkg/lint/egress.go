package lint

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/distribution/reference"
	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// contact is one network destination a command reaches.
type contact struct {
	// Host is the destination's name, lower-case; Port its port ("443"
	// for an https URL).
	Host, Port string
	// Method and Path are the HTTP request, when the command says (curl,
	// wget); Method is "" when the tool makes several kinds of request.
	Method, Path string
	// Certain reports a host written in the command (a URL, --registry,
	// an image reference); false when inferred from the configured
	// default registry of the tool's family.
	Certain bool
	// Family is the tool family whose default registry an inferred
	// contact comes from (see RegistryHosts); "" when Certain.
	Family string
	// Configured reports an inferred host .kitsmith.yaml names, rather
	// than kitsmith's well-known default.
	Configured bool
	// Unchecked reports a command that reaches its family's default
	// registry when kitsmith knows no host for it: the contact has no
	// Host, and the rule says the egress is unchecked.
	Unchecked bool
	// Via says what reaches it: "curl", "npm install (its default registry)".
	Via string
	// Range is where the host is written, or the command when inferred.
	Range spec.Range
}

// hostPort is the contact as an allow entry would name it.
func (c contact) hostPort() string {
	h := c.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if c.Port == "" {
		return h
	}
	return h + ":" + c.Port
}

// schemePorts are the default ports of URL schemes.
var schemePorts = map[string]string{"https": "443", "http": "80", "ssh": "22", "git": "9418", "ftp": "21"}

// loopback reports a host that never leaves the sandbox.
func loopback(h string) bool {
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "0.0.0.0" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// urlContact reads an http(s), ssh, git or ftp URL, or git's scp-like
// user@host:path, into a contact; false for anything else.
func urlContact(s string) (contact, bool) {
	if !strings.Contains(s, "://") {
		// git@example.org:org/repo.git
		at, colon := strings.IndexByte(s, '@'), strings.IndexByte(s, ':')
		if at > 0 && colon > at+1 && !strings.Contains(s[:colon], "/") {
			return contact{Host: strings.ToLower(s[at+1 : colon]), Port: "22", Certain: true}, true
		}
		return contact{}, false
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return contact{}, false
	}
	port := u.Port()
	if port == "" {
		p, ok := schemePorts[strings.ToLower(u.Scheme)]
		if !ok {
			return contact{}, false
		}
		port = p
	}
	c := contact{Host: strings.ToLower(u.Hostname()), Port: port, Path: u.EscapedPath(), Certain: true}
	if c.Path == "" {
		c.Path = "/"
	}
	return c, true
}

// argText returns argument i of c as the kit would run it: literal text,
// with ${{ kit.args.NAME }} replaced by the arg's default; "" when it
// holds a shell expansion (a host from the environment the kit cannot
// know) or an arg without a default.
func (in *Input) argText(s *Script, c Command, i int) string {
	a := c.Args[i]
	if a == "" {
		return ""
	}
	if s == nil || i >= len(c.ArgWords) {
		return in.resolved(a)
	}
	w := c.ArgWords[i]
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if end > len(s.Source) || start >= end {
		return a
	}
	orig := s.Source[start:end]
	if !strings.Contains(orig, "${{") {
		return a
	}
	return in.resolved(strings.NewReplacer(`"`, "", `'`, "").Replace(orig))
}

// argRefsIn returns the ${{ kit.args.NAME }} references argument i of c
// is written with, as written.
func argRefsIn(s *Script, c Command, i int) []string {
	if s == nil || i >= len(c.ArgWords) {
		return nil
	}
	w := c.ArgWords[i]
	if int(w.End().Offset()) > len(s.Source) {
		return nil
	}
	orig := s.Source[w.Pos().Offset():w.End().Offset()]
	var out []string
	for _, r := range spec.FindArgRefs(orig) {
		out = append(out, orig[r.Start:r.End])
	}
	return out
}

// resolved replaces arg references by the args' defaults; "" when one has
// no default.
func (in *Input) resolved(s string) string {
	v := in.withDefaults(s)
	if strings.Contains(v, "${{") {
		return ""
	}
	return v
}

// argRange positions argument i of a command.
func (in *Input) argRange(h *Hook, c Command, i int) spec.Range {
	if h.Script != nil && i < len(c.ArgWords) {
		return h.Script.Range(c.ArgWords[i].Pos(), c.ArgWords[i].End())
	}
	if h.Script == nil && len(h.Argv) > 0 {
		return in.Kit.PosOf(fmt.Sprintf("%s.command[%d]", h.Field, i+1))
	}
	return commandRange(in, h, c)
}

// valueFlag returns the value of a flag given as "-f v", "--flag v" or
// "--flag=v", and its argument index.
func valueFlag(args []string, names ...string) (string, int, bool) {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1], i + 1, true
			}
			if strings.HasPrefix(n, "--") && strings.HasPrefix(a, n+"=") {
				return a[len(n)+1:], i, true
			}
		}
	}
	return "", -1, false
}

// assigned returns the value a command is run with for one of names
// (NAME=value prefixes or env NAME=value), case-insensitively.
func assigned(c Command, names ...string) (string, bool) {
	match := func(n string) bool {
		for _, x := range names {
			if strings.EqualFold(n, x) {
				return true
			}
		}
		return false
	}
	for _, a := range c.Assigns {
		if a.Name != nil && match(a.Name.Value) {
			v, _ := WordText(a.Value)
			return v, true
		}
	}
	for _, w := range c.EnvAssigns {
		if t, ok := WordText(w); ok {
			if n, v, _ := strings.Cut(t, "="); match(n) {
				return v, true
			}
		}
	}
	return "", false
}

// commandContacts finds the destinations of one command of a hook.
type commandContacts struct {
	in *Input
	h  *Hook
	c  Command
}

// urls returns the literal URL arguments (git's user@host:path too).
func (cc commandContacts) urls(via, method string) []contact {
	var out []contact
	for i := range cc.c.Args {
		t := cc.in.argText(cc.h.Script, cc.c, i)
		if t == "" || strings.HasPrefix(t, "-") {
			continue
		}
		ct, ok := urlContact(t)
		if !ok || loopback(ct.Host) || !strings.Contains(t, "://") && cc.c.Name != "git" {
			continue
		}
		ct.Via, ct.Method, ct.Range = via, method, cc.in.argRange(cc.h, cc.c, i)
		if refs := argRefsIn(cc.h.Script, cc.c, i); len(refs) > 0 {
			ct.Via += " with the default of " + strings.Join(refs, ", ")
		}
		out = append(out, ct)
	}
	return out
}

// inferred returns the configured default hosts of a tool family; none
// when the configuration names none.
func (cc commandContacts) inferred(family, via string) []contact {
	return cc.in.inferredContacts(family, "GET", via, commandRange(cc.in, cc.h, cc.c))
}

// inferredContacts returns the configured default hosts of a family, as
// contacts of one request method reached by via at r.
func (in *Input) inferredContacts(family, method, via string, r spec.Range) []contact {
	var out []contact
	for _, rc := range in.registries[family] {
		out = append(out, contact{Host: rc.host, Port: rc.port, Method: method, Family: family, Configured: rc.configured, Via: via, Range: r})
	}
	if len(out) == 0 {
		return []contact{{Method: method, Family: family, Unchecked: true, Via: via, Range: r}}
	}
	return out
}

// configured returns the mirror a flag (argument i) or an assignment (i
// < 0) names.
func (cc commandContacts) configured(via, value string, i int) []contact {
	ct, ok := urlContact(value)
	if !ok || loopback(ct.Host) {
		return nil
	}
	ct.Via, ct.Method, ct.Range = via, "GET", commandRange(cc.in, cc.h, cc.c)
	if i >= 0 {
		ct.Range = cc.in.argRange(cc.h, cc.c, i)
	}
	return []contact{ct}
}

// contacts returns the destinations a command of hook h reaches. distro
// is the distribution family of the image the hook runs in ("debian",
// "ubuntu", "alpine", or "" when unknown).
func (in *Input) contacts(h *Hook, c Command, distro string) []contact {
	cc := commandContacts{in, h, c}
	switch c.Name {
	case "curl":
		return cc.urls("curl", curlMethod(c.Args))
	case "wget":
		return cc.urls("wget", wgetMethod(c.Args))
	case "git":
		switch sub := c.Sub(); sub {
		case "clone", "fetch", "pull", "ls-remote":
			return cc.urls("git "+sub, "")
		}
	case "npm", "pnpm", "yarn", "npx", "bunx":
		return cc.npm()
	case "pip", "pip3", "pipx", "uv":
		return cc.pip()
	case "apt-get", "apt", "apk":
		return cc.distroPackages(distro)
	case "go":
		return cc.goModules()
	case "cargo":
		return cc.cargo()
	case "gem":
		return cc.gem()
	case "docker", "podman":
		switch c.Sub() {
		case "pull", "run", "create":
			return in.imageContacts(h, c)
		case "compose":
			return in.composeContacts(h, c)
		}
	case "docker-compose":
		return in.composeContacts(h, c)
	}
	return nil
}

// wgetMethod is the HTTP method a wget command line uses.
func wgetMethod(args []string) string {
	if m, _, ok := valueFlag(args, "--method"); ok {
		return strings.ToUpper(m)
	}
	if _, _, ok := valueFlag(args, "--post-data", "--post-file"); ok {
		return "POST"
	}
	return "GET"
}

func (cc commandContacts) npm() []contact {
	c := cc.c
	if _, ok := networkClient(c); !ok {
		return nil
	}
	via := c.Name + " " + c.Sub()
	if c.Name == "npx" || c.Name == "bunx" {
		via = c.Name
	}
	if v, i, ok := valueFlag(c.Args, "--registry"); ok {
		return cc.configured(via, v, i)
	}
	if v, ok := assigned(c, "npm_config_registry"); ok {
		return cc.configured(via, v, -1)
	}
	family := "npm"
	if c.Name == "yarn" {
		family = "yarn"
	}
	return append(cc.urls(via, "GET"), cc.inferred(family, via+" (its default registry)")...)
}

func (cc commandContacts) pip() []contact {
	c := cc.c
	if _, ok := networkClient(c); !ok || c.HasArg("--no-index") || c.Name == "uv" && c.Sub() == "venv" {
		return nil
	}
	via := c.Name + " " + c.Sub()
	if v, i, ok := valueFlag(c.Args, "-i", "--index-url", "--default-index", "--index"); ok {
		return append(cc.configured(via, v, i), cc.urls(via, "GET")...)
	}
	if v, ok := assigned(c, "PIP_INDEX_URL", "UV_INDEX_URL", "UV_DEFAULT_INDEX"); ok {
		return cc.configured(via, v, -1)
	}
	return append(cc.urls(via, "GET"), cc.inferred("pypi", via+" (its default index)")...)
}

// distroPackages returns the mirrors of apt-get and apk: apk's --repository
// or the Alpine mirrors; for apt, the Debian or Ubuntu mirrors when the
// recipe's base says which, and nothing when it does not.
func (cc commandContacts) distroPackages(distro string) []contact {
	c := cc.c
	if _, ok := networkClient(c); !ok {
		return nil
	}
	sub := c.Sub()
	if c.Name == "apk" {
		if v, i, ok := valueFlag(c.Args, "-X", "--repository"); ok {
			return cc.configured("apk "+sub, v, i)
		}
		return cc.inferred("alpine", "apk "+sub+" (the Alpine mirrors)")
	}
	switch distro {
	case "debian", "ubuntu":
		return cc.inferred(distro, c.Name+" "+sub+" (the "+distro+" mirrors)")
	}
	return nil
}

func (cc commandContacts) goModules() []contact {
	c := cc.c
	sub := c.Sub()
	switch {
	case sub == "get" || sub == "install":
	case sub == "mod" && c.HasArg("download"):
	default:
		return nil
	}
	if v, ok := assigned(c, "GOPROXY"); ok {
		first, _, _ := strings.Cut(v, ",")
		if first == "off" || first == "direct" {
			return nil
		}
		return cc.configured("go "+sub, first, -1)
	}
	return cc.inferred("go", "go "+sub+" (its default module proxy and checksum database)")
}

// composeFiles are the names docker compose reads when no -f is given.
var composeFiles = []string{"compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"}

// composeContacts returns the registries of the images a docker compose
// up, pull, run or create pulls, when its compose file is a lifecycle file
// of the kit (named with -f, or by its default name).
func (in *Input) composeContacts(h *Hook, c Command) []contact {
	verb := ""
	for _, a := range c.Args {
		switch a {
		case "up", "pull", "run", "create":
			verb = a
		}
		if verb != "" {
			break
		}
	}
	if verb == "" {
		return nil
	}
	var names []string
	for i, a := range c.Args {
		if (a == "-f" || a == "--file") && i+1 < len(c.Args) {
			names = append(names, in.argText(h.Script, c, i+1))
		}
	}
	if len(names) == 0 {
		names = composeFiles
	}
	var out []contact
	for _, f := range in.Files {
		p := in.withDefaults(f.Path)
		match := false
		for _, n := range names {
			match = match || n != "" && (p == n || strings.HasSuffix(p, "/"+strings.TrimPrefix(n, "./")))
		}
		if !match {
			continue
		}
		var doc struct {
			Services map[string]struct {
				Image string `yaml:"image"`
			} `yaml:"services"`
		}
		if yaml.Unmarshal([]byte(f.Content), &doc) != nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(doc.Services)) {
			image := in.resolved(doc.Services[name].Image)
			if image == "" || strings.Contains(image, "$") {
				continue // built locally, or from a variable the kit cannot know
			}
			out = append(out, in.registryContacts(image, fmt.Sprintf("docker compose %s of %s (service %s)", verb, f.Path, name), commandRange(in, h, c))...)
		}
	}
	return out
}

// curlMethod is the HTTP method a curl command line uses.
func curlMethod(args []string) string {
	if m, _, ok := valueFlag(args, "-X", "--request"); ok {
		return strings.ToUpper(m)
	}
	for _, a := range args {
		switch {
		case a == "-I" || a == "--head":
			return "HEAD"
		case a == "-d" || a == "-F" || a == "--form" || a == "--json" || strings.HasPrefix(a, "--data"):
			return "POST"
		case a == "-T" || a == "--upload-file":
			return "PUT"
		}
	}
	return "GET"
}

// dockerValueFlags are docker run/create/pull flags that take a value.
var dockerValueFlags = map[string]bool{"-e": true, "--env": true, "-v": true, "--volume": true, "-p": true, "--publish": true,
	"--name": true, "--network": true, "--net": true, "-w": true, "--workdir": true, "-u": true, "--user": true,
	"--entrypoint": true, "--mount": true, "--platform": true, "-l": true, "--label": true, "--env-file": true,
	"-h": true, "--hostname": true, "--restart": true, "-m": true, "--memory": true, "--cpus": true, "--add-host": true,
	"--device": true, "--cap-add": true, "--cap-drop": true, "--security-opt": true, "--pull": true, "--tmpfs": true,
	"--ulimit": true, "--log-driver": true, "--log-opt": true, "--shm-size": true, "--gpus": true, "--runtime": true}

// imageContacts returns the registry a docker pull/run/create reaches for
// its image.
func (in *Input) imageContacts(h *Hook, c Command) []contact {
	seenSub := false
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case !seenSub:
			seenSub = a == c.Sub()
			continue
		case dockerValueFlags[a]:
			i++
			continue
		case strings.HasPrefix(a, "-"):
			continue
		}
		t := in.argText(h.Script, c, i)
		if t == "" {
			return nil
		}
		return in.registryContacts(t, c.Name+" "+c.Sub()+" "+t, in.argRange(h, c, i))
	}
	return nil
}

// registryContacts returns the registry an image reference is pulled
// from: the configured dockerhub hosts (inferred; none when not
// configured) for Docker Hub images, the named registry (certain)
// otherwise.
func (in *Input) registryContacts(image, via string, r spec.Range) []contact {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return nil
	}
	domain := reference.Domain(named)
	if domain == "docker.io" {
		return in.inferredContacts("dockerhub", "", via+" (Docker Hub)", r)
	}
	host, port := domain, "443"
	if hp, p, err := net.SplitHostPort(domain); err == nil {
		host, port = hp, p
	}
	if loopback(host) {
		return nil
	}
	return []contact{{Host: strings.ToLower(host), Port: port, Certain: true, Via: via, Range: r}}
}

// distro guesses the distribution family of the kit's image from its
// recipe's last FROM: "debian", "ubuntu", "alpine", or "".
func (in *Input) distro() string {
	d := in.Recipe
	if d == nil {
		return ""
	}
	image := ""
	for _, n := range d.Instructions() {
		if strings.EqualFold(n.Value, "from") && n.Next != nil {
			image = strings.ToLower(n.Next.Value)
		}
	}
	for _, f := range []string{"ubuntu", "alpine", "debian"} {
		if strings.Contains(image, f) {
			return f
		}
	}
	return ""
}

// pipelines calls fn for every "left | right" pipe of a script.
func pipelines(s *Script, fn func(left, right *syntax.Stmt)) {
	syntax.Walk(s.File, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			fn(b.X, b.Y)
		}
		return true
	})
}
