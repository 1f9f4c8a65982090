package emulator

import (
	"bytes"
	"context"
	"crypto/rand"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/core/content"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/client/llb"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"github.com/moby/buildkit/session"
	"github.com/moby/buildkit/session/sshforward/sshprovider"
	"github.com/moby/buildkit/solver/pb"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/tonistiigi/fsutil"

	"github.com/kitsmith/kitsmith/internal/shimproto"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Member is one kit of the composition under test.
type Member struct {
	// Kit is the kit with its published descriptor (review.FromSource or
	// review.FromArtifact); Run expands its args itself.
	Kit *review.Kit
	// Image is its image for the platform the hooks run on.
	Image v1.Image
}

// Options configure Run.
type Options struct {
	// Shim is the path of a static linux kitsmith binary for the
	// platform's architecture, run in the container as `kitsmith __shim`.
	// Required.
	Shim string
	// Platform is where the hooks run; the zero value is linux and the
	// architecture kitsmith runs on.
	Platform v1.Platform
	// KitArgs are create-phase arg values (--kit-arg), by arg name; each
	// kit takes the ones it declares.
	KitArgs map[string]string
	// Secrets are credential values by service (--secret): the value of
	// an API key that is not proxy-managed. A proxy-managed key's variable
	// holds a sentinel, and its secret must appear nowhere in the sandbox.
	Secrets map[string]string
	// HostSentinel is a value planted in the caller's own environment: it
	// must appear nowhere in the sandbox. "" plants none.
	HostSentinel string
	// Dial opens allowed connections upstream; nil dials with net.Dialer.
	Dial Dialer
	// HookTimeout bounds each hook; the zero value is 10 minutes.
	HookTimeout time.Duration
	// TempDir holds the run's scratch files (the composed image, the
	// proxy socket); "" uses the system's.
	TempDir string
}

// ErrShim reports a shim binary that cannot run in the container.
var ErrShim = errors.New("the kitsmith binary cannot run in the test container")

// CompositionError is a composition the runtime would refuse: nothing ran.
type CompositionError struct {
	Problems []review.Problem
}

func (e *CompositionError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return "the composition does not resolve: " + strings.Join(msgs, "; ")
}

const (
	shimDir   = "/run/kitsmith/bin"
	proxySock = "/run/kitsmith/proxy.sock"
	sshID     = "kitsmith-proxy"
	storeID   = "kitsmith-test"
	maxOutput = 64 << 10
)

// walkRoots are the trees the wrapper compares before and after a hook.
var walkRoots = []string{"/etc", "/home", "/opt", "/root", "/srv", "/tmp", "/usr/local", "/var"}

// Run composes the members, starts one container with no network but
// loopback through the BuildKit daemon s, and runs every hook in the
// runtime's order (install hooks, then startup hooks; providers before
// requirers), each as its user, with exactly its declared environment,
// its egress judged by the enforcing proxy. A hook that fails does not
// stop the run. The error is a *CompositionError for a composition that
// does not resolve, ErrShim for a shim that cannot run, or an
// infrastructure failure; hook failures, refusals and leaks are in the
// report (Report.OK).
func Run(ctx context.Context, s build.Solver, members []Member, o Options) (*Report, error) {
	if o.Platform.OS == "" {
		o.Platform = v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	}
	if o.HookTimeout == 0 {
		o.HookTimeout = 10 * time.Minute
	}
	if err := checkShim(o.Shim, o.Platform.Architecture); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, build.ErrNoSolver
	}
	plan, err := newPlan(members, o)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(o.TempDir, "kitsmith-test-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	img, err := build.Compose(plan.parts, o.Platform, time.Unix(0, 0).UTC())
	if err != nil {
		return nil, fmt.Errorf("composing the image: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("composing the image: %w", err)
	}
	layout := filepath.Join(tmp, "image")
	d, err := artifact.Write(ctx, artifact.FromImage(img), artifact.LayoutPrefix+layout)
	if err != nil {
		return nil, fmt.Errorf("writing the composed image: %w", err)
	}
	store := layoutStore{dir: layout}

	px := newProxy(plan.policy, o.Dial)
	sock := filepath.Join(tmp, "p.sock")
	if err := px.serve(sock); err != nil {
		return nil, err
	}
	defer px.close()
	agent, err := sshprovider.NewSSHAgentProvider([]sshprovider.AgentConfig{{ID: sshID, Paths: []string{sock}, Raw: true}})
	if err != nil {
		return nil, fmt.Errorf("forwarding the proxy socket: %w", err)
	}
	shimFS, err := fsutil.NewFS(filepath.Dir(o.Shim))
	if err != nil {
		return nil, fmt.Errorf("reading the kitsmith binary: %w", err)
	}
	so := client.SolveOpt{
		OCIStores:   map[string]content.Store{storeID: store},
		LocalMounts: map[string]fsutil.FS{"kitsmith-shim": shimFS},
		Session:     []session.Attachable{agent},
	}
	r := &runner{plan: plan, opts: o, proxy: px, image: "kitsmith-test/composed@" + d.Digest.String(), config: cf.Config}
	_, err = s.Build(ctx, so, "kitsmith-test", r.run, nil)
	if r.err != nil {
		return nil, r.err
	}
	if err != nil {
		return nil, fmt.Errorf("running the test container: %w", err)
	}
	return r.report, nil
}

// checkShim refuses a binary the container cannot run: not ELF, another
// architecture, or dynamically linked.
func checkShim(path, arch string) error {
	if path == "" {
		return fmt.Errorf("%w: no binary given", ErrShim)
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %s is not a linux executable (%v); run kitsmith test from a linux build of kitsmith", ErrShim, path, err)
	}
	defer f.Close()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
	if want == 0 || f.Machine != want {
		return fmt.Errorf("%w: %s is built for %s, the container runs linux/%s; kitsmith test runs on the host's own platform only", ErrShim, path, f.Machine, arch)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%w: %s is dynamically linked, and the container has no loader for it; build kitsmith with CGO_ENABLED=0 (go build -o kitsmith ./cmd/kitsmith)", ErrShim, path)
		}
	}
	return nil
}

// hookPlan is one hook to run.
type hookPlan struct {
	kit   string
	phase string
	index int
	hook  spec.Hook
}

// plan is what Run derived from the members before starting anything.
type plan struct {
	order  []string
	parts  []build.Part
	hooks  []hookPlan
	policy *policy
	values *values
	// sbx reports sbx@1: hooks default to the image's USER.
	sbx     bool
	ports   []int
	needles map[string]string // value → what it is
}

func newPlan(members []Member, o Options) (*plan, error) {
	// The workload first, then the others as given: the order of
	// 'sbx create W --kit A --kit B', which the composition order keeps
	// among kits that do not depend on each other.
	members = slices.Clone(members)
	slices.SortStableFunc(members, func(a, b Member) int {
		return cmpBool(b.Kit.Descriptor.Kind == spec.KindWorkload, a.Kit.Descriptor.Kind == spec.KindWorkload)
	})
	var kits []*review.Kit
	byName := map[string]Member{}
	exports := map[string]string{}
	envOf := map[string]map[string]string{}
	for _, m := range members {
		args := map[string]string{}
		for n, v := range o.KitArgs {
			if _, ok := m.Kit.Descriptor.Args[n]; ok {
				args[n] = v
			}
		}
		eff, err := m.Kit.Effective(args)
		if err != nil {
			return nil, err
		}
		vals, errs := spec.ResolveArgs(m.Kit.Descriptor.Args, spec.PhaseCreate, args)
		if len(errs) > 0 {
			return nil, fmt.Errorf("%s: %w", m.Kit.Name, errs)
		}
		env := map[string]string{}
		for n, a := range m.Kit.Descriptor.Args {
			if v, ok := vals[n]; ok && a.Env != "" {
				env[a.Env], exports[a.Env] = v, v
			}
		}
		envOf[m.Kit.Name] = env
		kits = append(kits, eff)
		byName[m.Kit.Name] = Member{Kit: eff, Image: m.Image}
	}
	res, err := review.Resolve(kits)
	if err != nil {
		return nil, err
	}
	if !res.OK() {
		return nil, &CompositionError{Problems: res.Problems}
	}
	p := &plan{order: res.Order, needles: map[string]string{}}
	for _, name := range res.Order {
		m := byName[name]
		p.parts = append(p.parts, build.Part{Name: name, Kind: m.Kit.Descriptor.Kind, Image: m.Image, Env: envOf[name]})
	}
	for _, phase := range []string{PhaseInstall, PhaseStartup} {
		for _, name := range res.Order {
			for _, c := range byName[name].Kit.Descriptor.Capabilities {
				if c.Type == spec.TypeSBX {
					p.sbx = true
				}
				if c.Type != spec.TypeLifecycle {
					continue
				}
				var lc spec.Lifecycle
				if err := spec.DecodeConfig(c.Config, &lc); err != nil {
					return nil, fmt.Errorf("%s: reading lifecycle@1: %w", name, err)
				}
				hooks := lc.Install
				if phase == PhaseStartup {
					hooks = lc.Startup
				}
				for i, h := range hooks {
					p.hooks = append(p.hooks, hookPlan{kit: name, phase: phase, index: i, hook: h})
				}
			}
		}
	}
	if p.policy, err = policyOf(res.Merged); err != nil {
		return nil, err
	}
	creds, sentinels, err := credentialValues(res.Merged, o.Secrets)
	if err != nil {
		return nil, err
	}
	p.values = &values{exports: exports, creds: creds, sentinels: sentinels}
	for svc := range sentinels {
		if v := o.Secrets[svc]; v != "" {
			p.needles[v] = "secret of " + svc
		}
	}
	if o.HostSentinel != "" {
		p.needles[o.HostSentinel] = "host sentinel"
	}
	p.ports = []int{80, 443}
	for _, ph := range p.policy.phases {
		for _, e := range ph.allow {
			if i := strings.LastIndexByte(e, ':'); i >= 0 {
				if n, err := strconv.Atoi(e[i+1:]); err == nil && n > 0 && n < 65536 && !slices.Contains(p.ports, n) && n != 53 && n != 3128 {
					p.ports = append(p.ports, n)
				}
			}
		}
	}
	slices.Sort(p.ports)
	return p, nil
}

// runner is the gateway build function of one run.
type runner struct {
	plan  *plan
	opts  Options
	proxy *proxy
	image string
	// config is the composed image's config: its ENV and USER.
	config v1.Config
	report *Report
	err    error
}

func (r *runner) run(ctx context.Context, c gateway.Client) (*gateway.Result, error) {
	rep, err := r.session(ctx, c)
	if err != nil {
		r.err = err
		return nil, err
	}
	r.report = rep
	return gateway.NewResult(), nil
}

func (r *runner) solve(ctx context.Context, c gateway.Client, st llb.State) (gateway.Reference, error) {
	pl := r.opts.Platform
	def, err := st.Marshal(ctx, llb.Platform(ocispecs.Platform{OS: pl.OS, Architecture: pl.Architecture, Variant: pl.Variant}))
	if err != nil {
		return nil, err
	}
	res, err := c.Solve(ctx, gateway.SolveRequest{Definition: def.ToPB()})
	if err != nil {
		return nil, err
	}
	return res.SingleRef()
}

func (r *runner) session(ctx context.Context, c gateway.Client) (*Report, error) {
	root, err := r.solve(ctx, c, llb.OCILayout(r.image, llb.OCIStore("", storeID)))
	if err != nil {
		return nil, fmt.Errorf("loading the composed image: %w", err)
	}
	passwd, _ := root.ReadFile(ctx, gateway.ReadRequest{Filename: "/etc/passwd"})
	users := accounts(passwd)
	r.plan.values.image = envMap(r.config.Env)
	imageUser := r.config.User

	etc, err := r.solve(ctx, c, llb.Scratch().
		File(llb.Mkfile("/resolv.conf", 0o644, []byte("nameserver 127.0.0.1\noptions ndots:0\n"))).
		File(llb.Mkfile("/hosts", 0o644, []byte("127.0.0.1\tlocalhost gateway.docker.internal "+Hostname+"\n::1\tlocalhost\n"))))
	if err != nil {
		return nil, fmt.Errorf("writing the container's name files: %w", err)
	}
	shim, err := r.solve(ctx, c, llb.Local("kitsmith-shim", llb.IncludePatterns([]string{filepath.Base(r.opts.Shim)}), llb.SharedKeyHint("kitsmith-shim")))
	if err != nil {
		return nil, fmt.Errorf("copying kitsmith into the container: %w", err)
	}
	ctr, err := c.NewContainer(ctx, gateway.NewContainerRequest{
		Hostname: Hostname,
		NetMode:  pb.NetMode_NONE,
		Mounts: []gateway.Mount{
			{Dest: "/", Ref: root, MountType: pb.MountType_BIND},
			{Dest: "/etc/resolv.conf", Ref: etc, Selector: "resolv.conf", MountType: pb.MountType_BIND, Readonly: true},
			{Dest: "/etc/hosts", Ref: etc, Selector: "hosts", MountType: pb.MountType_BIND, Readonly: true},
			{Dest: shimDir, Ref: shim, MountType: pb.MountType_BIND, Readonly: true},
			{Dest: proxySock, MountType: pb.MountType_SSH, SSHOpt: &pb.SSHOpt{ID: sshID, Mode: 0o666}},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("starting the test container: %w", err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		ctr.Release(rctx)
	}()
	if err := r.startShim(ctx, ctr); err != nil {
		return nil, err
	}
	rep := &Report{Platform: r.opts.Platform.OS + "/" + r.opts.Platform.Architecture, Order: r.plan.order,
		Hooks: []HookResult{}, Leaks: []Leak{}, Scope: Scope, NotEmulated: NotEmulated}
	for _, hp := range r.plan.hooks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep.Hooks = append(rep.Hooks, r.runHook(ctx, ctr, hp, users, imageUser, rep))
	}
	r.proxy.attribute("", nil)
	r.scanFiles(ctx, ctr, rep)
	return rep, nil
}

func (r *runner) shimPath() string { return shimDir + "/" + filepath.Base(r.opts.Shim) }

// startShim starts the shim's listeners and waits until they are up.
func (r *runner) startShim(ctx context.Context, ctr gateway.Container) error {
	ports := make([]string, len(r.plan.ports))
	for i, p := range r.plan.ports {
		ports[i] = strconv.Itoa(p)
	}
	ready := make(chan struct{})
	out := &signalWriter{want: []byte("ready"), ready: ready}
	var errb capture
	_, err := ctr.Start(ctx, gateway.StartRequest{
		Args:   []string{r.shimPath(), "__shim", "serve", "--socket", proxySock, "--ports", strings.Join(ports, ",")},
		Env:    []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"},
		User:   "0",
		Cwd:    "/",
		Stdout: out,
		Stderr: &errb,
	})
	if err != nil {
		return fmt.Errorf("starting the shim: %w", err)
	}
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(15 * time.Second):
		return fmt.Errorf("the shim did not start its listeners within 15 s: %s", strings.TrimSpace(errb.String()))
	}
}

func (r *runner) runHook(ctx context.Context, ctr gateway.Container, hp hookPlan, users []account, imageUser string, rep *Report) HookResult {
	h := hp.hook
	netPhase := PhaseRuntime
	user := h.User
	if hp.phase == PhaseInstall {
		netPhase = PhaseInstall
	}
	if user == "" {
		switch {
		case r.plan.sbx && imageUser != "":
			user = imageUser
		case hp.phase == PhaseInstall:
			user = "0"
		default:
			user = "1000"
		}
	}
	env := r.plan.values.hookEnv(netPhase, h.Env, home(users, strings.SplitN(user, ":", 2)[0]))
	res := HookResult{Kit: hp.kit, Phase: hp.phase, Index: hp.index, Description: h.Description, User: user, Background: h.Background,
		Connections: []Connection{}, Added: []string{}, Changed: []string{}, Removed: []string{}}
	for _, kv := range env {
		n, _, _ := strings.Cut(kv, "=")
		res.Env = append(res.Env, n)
	}
	argv := h.Command.Args()
	if len(argv) == 0 {
		res.Exit, res.Error = -1, "the hook has an empty command"
		return res
	}
	nonce := randomHex()
	args := append([]string{r.shimPath(), "__shim", "exec", "--nonce", nonce}, walkArgs()...)
	args = append(append(args, "--"), argv...)
	out := &capture{needles: r.plan.needles}
	r.proxy.attribute(netPhase, &res.Connections)
	defer r.proxy.attribute("", nil)
	hctx, cancel := context.WithTimeout(ctx, r.opts.HookTimeout)
	defer cancel()
	// The wrapper writes the hook's output and then its result on its
	// standard output; standard error carries only the wrapper's own.
	proc, err := ctr.Start(hctx, gateway.StartRequest{Args: args, Env: env, User: user, Cwd: "/", Stdout: out, Stderr: out})
	if err != nil {
		res.Exit, res.Error = -1, "could not start: "+err.Error()
		return res
	}
	if h.Background {
		res.Output = "(background: started, not awaited)"
		return res
	}
	done := make(chan error, 1)
	go func() { done <- proc.Wait() }()
	select {
	case err = <-done:
	case <-hctx.Done():
		proc.Signal(context.WithoutCancel(ctx), syscall.SIGTERM)
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
		}
		if ctx.Err() == nil {
			res.Error = fmt.Sprintf("timed out after %s", r.opts.HookTimeout)
		}
	}
	result, rest, perr := shimproto.ParseResult(out.bytes(), nonce)
	res.Output = tail(string(rest), 4096)
	switch {
	case perr != nil && res.Error == "":
		res.Exit, res.Error = -1, perr.Error()
		if err != nil {
			res.Error += ": " + err.Error()
		}
	case perr == nil:
		res.Exit, res.DurationMS = result.Exit, result.DurationMS
		if result.Error != "" && res.Error == "" {
			res.Error = result.Error
		}
		res.Added, res.Changed, res.Removed, res.FilesTruncated = nonNil(result.Added), nonNil(result.Changed), nonNil(result.Removed), result.FilesTruncated
		for _, kv := range result.Env {
			for needle, what := range r.plan.needles {
				if strings.Contains(kv, needle) {
					rep.Leaks = append(rep.Leaks, Leak{What: what, Where: "env", Kit: hp.kit, Phase: hp.phase, Index: hp.index})
				}
			}
		}
	}
	for _, what := range out.found() {
		rep.Leaks = append(rep.Leaks, Leak{What: what, Where: "output", Kit: hp.kit, Phase: hp.phase, Index: hp.index})
	}
	return res
}

func walkArgs() []string {
	var out []string
	for _, r := range walkRoots {
		out = append(out, "--walk", r)
	}
	return out
}

// Bounds of the file scan for leaks.
const (
	maxScanFiles = 200
	maxScanSize  = 1 << 20
)

// scanFiles reads back the files the hooks wrote (bounded) and looks for
// the sentinels and secrets in them.
func (r *runner) scanFiles(ctx context.Context, ctr gateway.Container, rep *Report) {
	if len(r.plan.needles) == 0 {
		return
	}
	n := 0
	for _, h := range rep.Hooks {
		for _, p := range slices.Concat(h.Added, h.Changed) {
			if n >= maxScanFiles {
				return
			}
			st, err := ctr.StatFile(ctx, gateway.StatContainerRequest{StatRequest: gateway.StatRequest{Path: p}})
			if err != nil || !os.FileMode(st.Mode).IsRegular() || st.Size > maxScanSize {
				continue
			}
			n++
			b, err := ctr.ReadFile(ctx, gateway.ReadContainerRequest{ReadRequest: gateway.ReadRequest{Filename: p}})
			if err != nil {
				continue
			}
			for needle, what := range r.plan.needles {
				if bytes.Contains(b, []byte(needle)) {
					rep.Leaks = append(rep.Leaks, Leak{What: what, Where: p, Kit: h.Kit, Phase: h.Phase, Index: h.Index})
				}
			}
		}
	}
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func randomHex() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
