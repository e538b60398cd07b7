package deps

import (
	_ "github.com/google/jsonschema-go/jsonschema"
	_ "github.com/hashicorp/go-hclog"
	_ "github.com/hashicorp/go-plugin"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/ohler55/ojg/jp"
	_ "github.com/reviewdog/errorformat"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
	_ "go.yaml.in/yaml/v3"
	_ "google.golang.org/grpc"
	_ "google.golang.org/protobuf/proto"
)
