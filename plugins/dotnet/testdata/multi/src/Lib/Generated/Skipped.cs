namespace Multi.Lib.Generated;

internal static class Skipped
{
}
