namespace Shapes
{
    public sealed class Square : IShape   
    {
        private readonly double side;

        public Square(double side) => this.side = side;	

        public double Area()
        {
            return side * side;
        }

        public string Name { get; } = "square";
    }
}
