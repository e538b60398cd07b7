namespace Multi.Lib;

public abstract class Shape
{
    public abstract double Area();
}
