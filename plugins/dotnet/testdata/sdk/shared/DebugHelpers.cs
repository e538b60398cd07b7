namespace Shop.Diagnostics
{
    internal static class DebugHelpers { }
}
