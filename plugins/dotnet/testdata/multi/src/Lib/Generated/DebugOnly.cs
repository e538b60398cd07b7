namespace Multi.Lib.Generated;

internal static class DebugOnly
{
    public const bool On = true;
}
