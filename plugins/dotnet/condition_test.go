package dotnet

import (
	"errors"
	"runtime"
	"testing"
)

func TestEvalCondition(t *testing.T) {
	props := newProperties(map[string]string{"Configuration": "Debug", "TargetFramework": "net8.0", "Platform": "AnyCPU"})
	props.set("Empty", "")
	tests := []struct {
		cond string
		want bool
	}{
		{"", true},
		{"'$(Configuration)' == 'Debug'", true},
		{" '$(Configuration)' == 'debug' ", true},
		{"'$(Configuration)' != 'Debug'", false},
		{"'$(Configuration)|$(Platform)' == 'Debug|AnyCPU'", true},
		{"'$(TargetFramework)' == 'net48'", false},
		{"'$(Configuration)' == 'Release' or '$(TargetFramework)' == 'net8.0'", true},
		{"'$(Configuration)' == 'Debug' and '$(TargetFramework)' == 'net48'", false},
		{"('$(Configuration)' == 'Release' or '$(Configuration)' == 'Debug') and '$(Empty)' == ''", true},
		{"!('$(Configuration)' == 'Debug')", false},
		{"$(Configuration) == Debug", true},
		{"'$(Unknown)' == ''", true},
		{"true", true},
		{"'1' < '2'", true},
		{"Exists('condition.go')", true},
		{"!Exists('no-such-file')", true},
		{"Exists('testdata/sdk')", true},
		{"Exists('/no/such/dir/outside')", false},
		// Answered for the machine langhost runs on, as dotnet msbuild does.
		{"$([MSBuild]::IsOSPlatform('Windows'))", runtime.GOOS == "windows"},
		{"!$([MSBuild]::IsOSPlatform('windows'))", runtime.GOOS != "windows"},
		{"$([MSBuild]::IsOSPlatform('Linux')) or $([MSBuild]::IsOSPlatform('OSX'))", runtime.GOOS == "linux" || runtime.GOOS == "darwin"},
		{"$([MSBuild]::IsOSUnixLike())", runtime.GOOS != "windows"},
	}
	tr := testTree(t, ".")
	for _, tt := range tests {
		got, err := evalCondition(tt.cond, props, tr.root, tr)
		if err != nil {
			t.Errorf("evalCondition(%q): %v", tt.cond, err)
			continue
		}
		if got != tt.want {
			t.Errorf("evalCondition(%q) = %v, want %v", tt.cond, got, tt.want)
		}
	}
}

func TestEvalConditionUnsupported(t *testing.T) {
	props := newProperties(nil)
	tr := testTree(t, ".")
	for _, cond := range []string{
		"$([MSBuild]::GetTargetPlatformIdentifier('$(TargetFramework)'))",
		"'$(TargetFramework.StartsWith(net4))' == 'true'",
		"'@(Compile)' != ''",
		"'a' = 'b'",
		"'a' ==",
		"Exists('/etc/passwd')",
		"Exists('../../../../../../../../etc')",
		"Exists('/etc/passwd') or true",
	} {
		if _, err := evalCondition(cond, props, tr.root, tr); !errors.Is(err, errUnsupported) {
			t.Errorf("evalCondition(%q) error = %v, want errUnsupported", cond, err)
		}
	}
}

func TestGlobalPropertiesWin(t *testing.T) {
	props := newProperties(map[string]string{"Configuration": "Release"})
	props.set("configuration", "Debug")
	if got := props.get("CONFIGURATION"); got != "Release" {
		t.Errorf("Configuration = %q, want the global Release", got)
	}
}

func testTree(t *testing.T, root string) *tree {
	t.Helper()
	tr, err := newTree(root)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
