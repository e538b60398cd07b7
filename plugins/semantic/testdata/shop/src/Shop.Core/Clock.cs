namespace Shop.Core;

public static class Clock
{
    public static DateTime Stamp() => DateTime.UtcNow;
}
