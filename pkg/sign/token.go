package sign

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sigstore/sigstore/pkg/oauthflow"
)

// TokenSource gives the OIDC identity token a keyless signature's
// certificate is issued for. Implementations never put a token in an
// error.
type TokenSource interface {
	// Token returns a raw identity token (a JWT), or ErrNoToken.
	Token(ctx context.Context) (string, error)
}

// Public-good Sigstore's OIDC issuer and client, for InteractiveToken.
const (
	PublicGoodOIDCIssuer = "https://oauth2.sigstore.dev/auth"
	PublicGoodClientID   = "sigstore"
)

// githubAudience is the audience Fulcio expects of a GitHub Actions token.
const githubAudience = "sigstore"

// maxTokenSize bounds a token read from a file or a token endpoint.
const maxTokenSize = 64 << 10

// StaticToken returns a TokenSource that always gives tok, as from
// --identity-token or SIGSTORE_ID_TOKEN. An empty tok gives ErrNoToken.
func StaticToken(tok string) TokenSource { return staticToken(tok) }

type staticToken string

func (t staticToken) Token(context.Context) (string, error) {
	if t == "" {
		return "", ErrNoToken
	}
	return strings.TrimSpace(string(t)), nil
}

// FileToken returns a TokenSource that reads the token from path on each
// call, so that a token a platform rotates stays fresh.
func FileToken(path string) TokenSource { return fileToken(path) }

type fileToken string

func (p fileToken) Token(context.Context) (string, error) {
	f, err := os.Open(string(p))
	if err != nil {
		return "", fmt.Errorf("reading the identity token: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenSize))
	if err != nil {
		return "", fmt.Errorf("reading the identity token from %s: %w", p, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("reading the identity token from %s: the file is empty: %w", p, ErrNoToken)
	}
	return tok, nil
}

// GitHubActionsToken returns a TokenSource that asks GitHub Actions for a
// token with audience "sigstore": requestURL and requestToken are the
// values of ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN,
// which the caller reads. rt nil means http.DefaultTransport.
func GitHubActionsToken(requestURL, requestToken string, rt http.RoundTripper) TokenSource {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &githubToken{url: requestURL, bearer: requestToken, client: &http.Client{Transport: rt, Timeout: 30 * time.Second}}
}

type githubToken struct {
	url, bearer string
	client      *http.Client
}

func (g *githubToken) Token(ctx context.Context) (string, error) {
	if g.url == "" || g.bearer == "" {
		return "", fmt.Errorf("GitHub Actions token: the request URL and token are both needed (give the job `permissions: id-token: write`): %w", ErrNoToken)
	}
	tok, err := g.fetch(ctx)
	return tok, redact(err, g.bearer)
}

func (g *githubToken) fetch(ctx context.Context) (string, error) {
	u, err := url.Parse(g.url)
	if err != nil {
		return "", fmt.Errorf("GitHub Actions token: parsing the request URL: %w", err)
	}
	q := u.Query()
	q.Set("audience", githubAudience)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("GitHub Actions token: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+g.bearer)
	req.Header.Set("Accept", "application/json")
	resp, err := g.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("GitHub Actions token: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenSize))
	if err != nil {
		return "", fmt.Errorf("GitHub Actions token: reading the response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GitHub Actions token: the token endpoint answered %s", resp.Status)
	}
	var v struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Value == "" {
		return "", fmt.Errorf("GitHub Actions token: the response holds no token: %w", ErrNoToken)
	}
	return v.Value, nil
}

// InteractiveToken returns a TokenSource for a person at a terminal: it
// runs the OIDC flow of github.com/sigstore/sigstore/pkg/oauthflow against
// issuer with clientID, in a browser (the redirect comes back to a
// listener on 127.0.0.1), or with device set, the device flow (a code to
// enter on another device). Prompts go to out and, for a browser that
// cannot be opened, the code is read from in.
func InteractiveToken(issuer, clientID string, device bool, in io.Reader, out io.Writer) TokenSource {
	return &interactiveToken{issuer: issuer, clientID: clientID, device: device, in: in, out: out}
}

type interactiveToken struct {
	issuer, clientID string
	device           bool
	in               io.Reader
	out              io.Writer
}

func (t *interactiveToken) Token(context.Context) (string, error) {
	var getter oauthflow.TokenGetter
	if t.device {
		d := oauthflow.NewDeviceFlowTokenGetterForIssuer(t.issuer)
		d.MessagePrinter = func(s string) { fmt.Fprintln(t.out, s) }
		getter = d
	} else {
		getter = &oauthflow.InteractiveIDTokenGetter{
			HTMLPage: oauthflow.DefaultIDTokenGetter.HTMLPage,
			Input:    t.in,
			Output:   t.out,
		}
	}
	tok, err := oauthflow.OIDConnect(t.issuer, t.clientID, "", "", getter)
	if err != nil {
		return "", fmt.Errorf("signing in at %s: %w", t.issuer, err)
	}
	return tok.RawString, nil
}
