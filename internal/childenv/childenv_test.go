package childenv

import (
	"slices"
	"testing"
)

func TestScrub(t *testing.T) {
	env := []string{
		"PATH=/usr/bin", "HOME=/home/u", "GOFLAGS=-mod=mod", "LANG=C.UTF-8",
		"OPENAI_API_KEY=sk-0123456789abcdefghij", "ANTHROPIC_API_KEY=x", "LANGHOST_MCP_TOKEN=t0k",
		"GITHUB_TOKEN=ghp_x", "aws_secret_access_key=abc", "DB_PASSWORD=hunter2", "MY_SECRET=s",
		"MYKEY=sk-ant-api03-abcdefghijklmnopqrstuv", "TOKENIZER=bpe", "KEYBOARD=us",
		"LANGHOST_PROCGROUP_x=1", "LANGHOST_PLUGIN_MAGIC_COOKIE=abc",
	}
	got := Scrub(env)
	want := []string{"PATH=/usr/bin", "HOME=/home/u", "GOFLAGS=-mod=mod", "LANG=C.UTF-8", "TOKENIZER=bpe", "KEYBOARD=us",
		"LANGHOST_PROCGROUP_x=1", "LANGHOST_PLUGIN_MAGIC_COOKIE=abc"}
	if !slices.Equal(got, want) {
		t.Errorf("Scrub =\n%q\nwant\n%q", got, want)
	}
	got = Scrub(env, "OPENAI_API_KEY", "MYKEY")
	for _, kv := range []string{"OPENAI_API_KEY=sk-0123456789abcdefghij", "MYKEY=sk-ant-api03-abcdefghijklmnopqrstuv"} {
		if !slices.Contains(got, kv) {
			t.Errorf("passed %s was removed: %q", kv, got)
		}
	}
	if slices.Contains(got, "ANTHROPIC_API_KEY=x") {
		t.Error("a variable not passed was kept")
	}
}

func TestPass(t *testing.T) {
	t.Setenv("CHILDENV_TEST_KEY", "v")
	got := Pass([]string{"CHILDENV_TEST_KEY", "CHILDENV_TEST_KEY", "CHILDENV_UNSET", "", "A=B"})
	if !slices.Equal(got, []string{"CHILDENV_TEST_KEY=v"}) {
		t.Errorf("Pass = %q", got)
	}
}

func TestLanghost(t *testing.T) {
	got := Langhost([]string{"PATH=/bin", "LANGHOST_MCP_TOKEN=t", "LANGHOST_DAEMON=0"})
	if !slices.Equal(got, []string{"LANGHOST_MCP_TOKEN", "LANGHOST_DAEMON"}) {
		t.Errorf("Langhost = %q", got)
	}
}

func TestSecretNames(t *testing.T) {
	got := SecretNames([]string{"PATH=/bin", "OPENAI_API_KEY=k", "MYKEY=sk-abcdefghijklmnopqrstuv"})
	if !slices.Equal(got, []string{"OPENAI_API_KEY", "MYKEY"}) {
		t.Errorf("SecretNames = %q", got)
	}
}
