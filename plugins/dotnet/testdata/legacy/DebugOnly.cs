namespace Contoso.Legacy
{
    partial class DebugOnly { }
}
