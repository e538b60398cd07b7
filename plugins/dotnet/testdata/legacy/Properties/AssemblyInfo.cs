using System.Reflection;
[assembly: AssemblyTitle("Contoso.Legacy")]
