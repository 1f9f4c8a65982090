package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveEnv makes the test binary a language server on stdin and stdout,
// for an editor the test starts to run.
const serveEnv = "KITSMITH_LSP_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		err := Serve(context.Background(), stdio{}, Options{Debounce: 20 * time.Millisecond, Log: os.Stderr})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }

// integration returns the tool the variable names, skipping the test when
// KITSMITH_INTEGRATION is unset and failing when it is set without it.
func integration(t *testing.T, variable string) string {
	t.Helper()
	bin := os.Getenv(variable)
	if os.Getenv("KITSMITH_INTEGRATION") == "" {
		t.Skip("KITSMITH_INTEGRATION is not set")
	}
	if bin == "" {
		t.Fatalf("KITSMITH_INTEGRATION=1 but %s is not set (scripts/services.sh env)", variable)
	}
	return bin
}

// nvimScript opens the kit in Neovim, starts the server with the built-in
// LSP client, waits for diagnostics, requests the code actions of the
// whole buffer, applies the first quick fix and writes what it saw.
const nvimScript = `
local kit, out, server = os.getenv('KIT_FILE'), os.getenv('OUT_FILE'), os.getenv('SERVER_CMD')
local function finish(lines)
  vim.fn.writefile(lines, out)
  vim.cmd('qall!')
end
vim.cmd('edit ' .. vim.fn.fnameescape(kit))
local id = vim.lsp.start_client({
  name = 'kitsmith', cmd = { server }, cmd_env = { KITSMITH_LSP_TEST_SERVE = '1' },
  root_dir = vim.fn.fnamemodify(kit, ':h'),
})
if not id then return finish({ 'error: no client' }) end
vim.lsp.buf_attach_client(0, id)
local ok = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
if not ok then return finish({ 'error: no diagnostics' }) end
local lines = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(lines, string.format('diagnostic %s %d:%d %s', tostring(d.code), d.lnum + 1, d.col + 1, d.severity))
end
local last = vim.api.nvim_buf_line_count(0)
local params = {
  textDocument = vim.lsp.util.make_text_document_params(),
  range = { start = { line = 0, character = 0 }, ['end'] = { line = last, character = 0 } },
  context = { diagnostics = {}, only = { 'quickfix' } },
}
local results = vim.lsp.buf_request_sync(0, 'textDocument/codeAction', params, 20000)
local applied = false
for _, res in pairs(results or {}) do
  for _, action in ipairs(res.result or {}) do
    if not applied and action.edit then
      table.insert(lines, 'action ' .. action.title)
      vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
      applied = true
    end
  end
end
if not applied then table.insert(lines, 'error: no code action') end
table.insert(lines, '--- buffer')
for _, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do table.insert(lines, l) end
finish(lines)
`

// TestNeovim drives real Neovim headless, with its built-in LSP client,
// over a fixture kit: it receives the diagnostics kitsmith lint reports,
// applies a code action and the buffer holds the fix.
func TestNeovim(t *testing.T) {
	nvim := integration(t, "KITSMITH_TEST_NVIM")
	path, _ := writeKit(t, "hook-env-undeclared/bad/example", "kit.yaml")
	dir := t.TempDir()
	script, out := filepath.Join(dir, "test.lua"), filepath.Join(dir, "out.txt")
	if err := os.WriteFile(script, []byte(nvimScript), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "KIT_FILE="+path, "OUT_FILE="+out, "SERVER_CMD="+self, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir)
	cmd.Dir = filepath.Dir(path)
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote nothing: %v", err)
	}
	got := string(b)
	t.Logf("nvim took %v:\n%s", time.Since(start).Round(time.Millisecond), got)
	// what kitsmith lint reports, as Neovim shows it: code, 1-based line
	// and byte column, severity
	want := []string{}
	for _, d := range cliDiagnostics(t, path) {
		f := strings.Fields(d)
		var p struct{ Line, Character int }
		if err := json.Unmarshal([]byte(f[2]), &p); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("diagnostic %s %d:%d %s", f[0], p.Line+1, p.Character+1, f[1]))
	}
	if len(want) == 0 {
		t.Fatal("the fixture has no findings")
	}
	for _, want := range append(want,
		"action add RESHAPR_PORT to the env: list of hook install[0]",
		"        - env: [RESHAPR_PORT]\n          command: |",
	) {
		if !strings.Contains(got, want) {
			t.Errorf("nvim output lacks %q", want)
		}
	}
	if strings.Contains(got, "error:") {
		t.Errorf("nvim reported an error")
	}
}
