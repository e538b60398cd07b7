// Package dotnet reads C# project structure without .NET: it parses
// solutions (.sln, .slnx) and MSBuild project files (.csproj, SDK-style and
// legacy), evaluates the simple conditions real projects use, and answers the
// project-structure operations (list_projects, project_info, ...) that the
// RoslynCodingAgent serves next to its language-server operations.
//
// All paths in results are relative to the workspace root and use forward
// slashes.
package dotnet
